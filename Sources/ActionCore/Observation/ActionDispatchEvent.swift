import struct Foundation.Date

/// Describes one perform to dispatch observers.
public struct ActionDispatchEvent: Sendable, Hashable {
    /// The identity of the perform.
    public let requestID: ActionRequestID
    /// The session performing the action.
    public let sessionName: String
    /// The action's feature, e.g. `Echo`.
    public let featureName: String
    /// The action's full name, e.g. `Echo.say`.
    public let actionName: String
    /// Whether the session's actions are user initiated.
    public let userInitiated: Bool
    /// The name of the executor the action runs on.
    public let executorName: String
    /// When the perform was requested.
    public let date: Date
    /// The action's ``Action/analyticsID``: `nil` for actions that are not tracked.
    public var analyticsID: String? = nil

    @usableFromInline
    init(
        requestID: ActionRequestID, sessionName: String, featureName: String, actionName: String, userInitiated: Bool,
        executorName: String, date: Date, analyticsID: String?
    ) {
        self.requestID = requestID
        self.sessionName = sessionName
        self.featureName = featureName
        self.actionName = actionName
        self.userInitiated = userInitiated
        self.executorName = executorName
        self.date = date
        self.analyticsID = analyticsID
    }
}
