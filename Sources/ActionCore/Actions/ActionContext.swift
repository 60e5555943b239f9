import Logging

/// What an action receives when performed: its input, where it runs, a logger and its deadline.
public struct ActionContext<Input: Sendable>: Sendable {
    /// The action's input.
    public let input: Input
    /// The full name of the action, e.g. `Echo.say`.
    public let actionName: String
    /// The identity of this perform.
    public let requestID: ActionRequestID
    /// The session performing the action; use it for nested performs.
    public let session: ActionSession
    /// A logger carrying `action.name`, `action.session` and `action.request` metadata (made
    /// when asked for, so a perform that logs nothing pays nothing for it).
    public var logger: Logger { session.logger(forAction: actionName, requestID: requestID) }
    /// When the perform times out with ``ActionError/Code/timedOut``; `nil` when it never does.
    public let deadline: ContinuousClock.Instant?
    @usableFromInline let run: ActionRun

    @usableFromInline
    init(input: Input, actionName: String, requestID: ActionRequestID, session: ActionSession, deadline: ContinuousClock.Instant?, run: ActionRun) {
        self.input = input
        self.actionName = actionName
        self.requestID = requestID
        self.session = session
        self.deadline = deadline
        self.run = run
    }

    /// The name of the session performing the action.
    public var sessionName: String { session.name }

    /// Whether the session's actions are initiated by a user (Flint's `userInitiatedActions`).
    public var userInitiated: Bool { session.userInitiated }

    /// Whether the perform has timed out or been cancelled: long work should stop early.
    public var isCancelled: Bool {
        if let deadline, ContinuousClock.now >= deadline {
            return true
        }
        return run.isTerminated
    }

    /// Throws ``ActionError/Code/cancelled`` when ``isCancelled``.
    public func checkCancellation() throws(ActionError) {
        if isCancelled {
            throw ActionError(code: .cancelled, message: "\(actionName) was cancelled or passed its deadline")
        }
    }

    /// Registers `handler` to run if the perform times out or is cancelled before completing;
    /// runs it at once when that already happened.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        run.onCancel(handler)
    }
}
