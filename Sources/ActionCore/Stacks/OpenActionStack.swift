import struct Foundation.Date

/// The tracker's mutable record of one open stack.
struct OpenActionStack: Sendable {
    let id: ActionStackID
    let sessionName: String
    let featureName: String
    let parentID: ActionStackID?
    let userInitiated: Bool
    let openedAt: Date
    private(set) var entries: [ActionStackSnapshot.Entry] = []
    private(set) var droppedEntryCount = 0

    init(id: ActionStackID, sessionName: String, featureName: String, parentID: ActionStackID?, userInitiated: Bool, openedAt: Date) {
        self.id = id
        self.sessionName = sessionName
        self.featureName = featureName
        self.parentID = parentID
        self.userInitiated = userInitiated
        self.openedAt = openedAt
    }

    /// Appends `entry`, dropping the oldest entries beyond `maximumEntries`.
    mutating func append(_ entry: ActionStackSnapshot.Entry, maximumEntries: Int) {
        entries.append(entry)
        let excess = entries.count - maximumEntries
        if excess > 0 {
            entries.removeFirst(excess)
            droppedEntryCount += excess
        }
    }

    func snapshot(subStacks: [ActionStackSnapshot]) -> ActionStackSnapshot {
        ActionStackSnapshot(
            id: id,
            sessionName: sessionName,
            featureName: featureName,
            parentID: parentID,
            userInitiated: userInitiated,
            openedAt: openedAt,
            entries: entries,
            droppedEntryCount: droppedEntryCount,
            subStacks: subStacks
        )
    }
}
