import struct Foundation.Date

/// One completed perform, as fed to an ``ActionStackTracker``.
public struct ActionStackRecord: Sendable, Hashable, Codable {
    /// The session the action was performed in.
    public var sessionName: String
    /// The action's feature, e.g. `Documents`; stacks are kept per session and feature.
    public var featureName: String
    /// The action's full name, e.g. `Documents.open`.
    public var actionName: String
    /// How the perform ended; `closeActionStack` closes the feature's stack.
    public var outcome: ActionOutcomeSummary
    /// Whether the action was user initiated.
    public var userInitiated: Bool
    /// When the perform completed.
    public var date: Date

    /// Creates a record.
    public init(
        sessionName: String,
        featureName: String,
        actionName: String,
        outcome: ActionOutcomeSummary,
        userInitiated: Bool = true,
        date: Date = Date()
    ) {
        self.sessionName = sessionName
        self.featureName = featureName
        self.actionName = actionName
        self.outcome = outcome
        self.userInitiated = userInitiated
        self.date = date
    }
}
