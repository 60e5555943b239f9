/// Flint's action stacks as a plain value: feed it one ``ActionStackRecord`` per completed
/// perform and it keeps, per session and feature, the trail of actions performed.
///
/// The rules:
/// - Each (session, feature) has at most one open stack; a record joins it, or opens one.
/// - A stack opened while another stack of the same session is open becomes a sub-stack of the
///   most recently opened one, which gets a `subStack` entry.
/// - A record whose outcome has `closeActionStack` closes its feature's stack and, with it,
///   every sub-stack opened inside it.
/// - A stack keeps at most ``maximumEntries`` entries; the oldest are dropped.
///
/// It knows nothing of executors or queues, so a coordinator can use it on its own; it is not
/// synchronised: keep it behind a lock or inside an actor.
public struct ActionStackTracker: Sendable {
    /// Flint's cap on the entries of one stack.
    public static let defaultMaximumEntries = 100

    /// The cap on the entries of one stack.
    public let maximumEntries: Int
    private var stacks: [ActionStackID: OpenActionStack] = [:]
    /// The open stacks of each session, in the order they were opened.
    private var openStackIDsBySession: [String: [ActionStackID]] = [:]
    private var lastStackID: UInt64 = 0

    /// Creates a tracker with no open stacks.
    public init(maximumEntries: Int = ActionStackTracker.defaultMaximumEntries) {
        precondition(maximumEntries > 0, "An action stack must be able to hold at least one entry")
        self.maximumEntries = maximumEntries
    }

    /// Records one completed perform: joins or opens its feature's stack, and closes it when the
    /// outcome says so.
    @discardableResult
    public mutating func record(_ record: ActionStackRecord) -> ActionStackUpdate {
        let entry = ActionStackSnapshot.Entry.action(record.actionName, outcome: record.outcome, date: record.date)
        let opened: Bool
        let stackID: ActionStackID
        var parentID: ActionStackID?
        if let existing = openStackID(sessionName: record.sessionName, featureName: record.featureName) {
            stackID = existing
            opened = false
        } else {
            parentID = openStackIDsBySession[record.sessionName]?.last
            stackID = openStack(for: record, parentID: parentID)
            opened = true
        }
        appendEntry(entry, to: stackID)

        let closed = record.outcome.closeActionStack ? close(stackID) : nil
        return ActionStackUpdate(stackID: stackID, openedStack: opened, parentStackID: parentID, closedStack: closed)
    }

    /// Appends to a stack in place, through the dictionary's values by index: `stacks[id]?.append`
    /// goes through the dictionary's `modify` accessor, whose coroutine frames were heap-allocated
    /// (three allocations, one of 512 bytes, per perform).
    private mutating func appendEntry(_ entry: ActionStackSnapshot.Entry, to id: ActionStackID) {
        guard let index = stacks.index(forKey: id) else { return }
        stacks.values[index].append(entry, maximumEntries: maximumEntries)
    }

    /// Closes every open stack of `sessionName` (say, when the session ends) and returns them.
    @discardableResult
    public mutating func closeStacks(sessionName: String) -> [ActionStackSnapshot] {
        let roots = openStacks(sessionName: sessionName)
        for id in openStackIDsBySession[sessionName] ?? [] {
            stacks[id] = nil
        }
        openStackIDsBySession[sessionName] = nil
        return roots
    }

    /// The open stack of `featureName` in `sessionName`, with its sub-stacks.
    public func openStack(sessionName: String, featureName: String) -> ActionStackSnapshot? {
        openStackID(sessionName: sessionName, featureName: featureName).map(snapshot(of:))
    }

    /// The open stack with `id`, with its sub-stacks.
    public func openStack(id: ActionStackID) -> ActionStackSnapshot? {
        stacks[id] == nil ? nil : snapshot(of: id)
    }

    /// The open root stacks (those that are nobody's sub-stack), oldest first, of one session or
    /// of all sessions; sub-stacks are nested inside.
    public func openStacks(sessionName: String? = nil) -> [ActionStackSnapshot] {
        stacks.values
            .filter { $0.parentID == nil && (sessionName == nil || $0.sessionName == sessionName) }
            .map(\.id)
            .sorted()
            .map(snapshot(of:))
    }

    /// How many stacks are open, sub-stacks included.
    public var openStackCount: Int {
        stacks.count
    }

    /// A report of every open stack, or of one session's.
    public func report(sessionName: String? = nil) -> ActionStacksReport {
        ActionStacksReport(stacks: openStacks(sessionName: sessionName))
    }

    // MARK: - Transitions

    private mutating func openStack(for record: ActionStackRecord, parentID: ActionStackID?) -> ActionStackID {
        lastStackID += 1
        let id = ActionStackID(rawValue: lastStackID)
        stacks[id] = OpenActionStack(
            id: id,
            sessionName: record.sessionName,
            featureName: record.featureName,
            parentID: parentID,
            userInitiated: record.userInitiated,
            openedAt: record.date
        )
        openStackIDsBySession[record.sessionName, default: []].append(id)
        if let parentID {
            appendEntry(.subStack(id, featureName: record.featureName, date: record.date), to: parentID)
        }
        return id
    }

    /// Removes the stack and everything opened inside it; returns what was closed.
    private mutating func close(_ id: ActionStackID) -> ActionStackSnapshot? {
        guard let stack = stacks[id] else { return nil }
        let closedSnapshot = snapshot(of: id)
        let sessionStackIDs = openStackIDsBySession[stack.sessionName] ?? []
        // A sub-stack is always opened after its parent, so one pass in opening order finds every descendant.
        var closing: Set<ActionStackID> = [id]
        for candidate in sessionStackIDs {
            if let parentID = stacks[candidate]?.parentID, closing.contains(parentID) {
                closing.insert(candidate)
            }
        }
        for closedID in closing {
            stacks[closedID] = nil
        }
        let remaining = sessionStackIDs.filter { !closing.contains($0) }
        openStackIDsBySession[stack.sessionName] = remaining.isEmpty ? nil : remaining
        return closedSnapshot
    }

    // MARK: - Queries

    private func openStackID(sessionName: String, featureName: String) -> ActionStackID? {
        openStackIDsBySession[sessionName]?.first { stacks[$0]?.featureName == featureName }
    }

    private func snapshot(of id: ActionStackID) -> ActionStackSnapshot {
        let stack = stacks[id]!
        let subStacks = (openStackIDsBySession[stack.sessionName] ?? [])
            .filter { stacks[$0]?.parentID == id }
            .map(snapshot(of:))
        return stack.snapshot(subStacks: subStacks)
    }
}
