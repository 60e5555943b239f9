/// A completion that was not delivered: a second completion, or one after the perform ended
/// by timeout or cancellation.
public struct ActionCompletionRejection: Sendable, Hashable, CustomStringConvertible {
    /// Why the completion was rejected.
    public enum Reason: String, Sendable, Hashable {
        /// The action had already completed.
        case secondCompletion
        /// The perform had already timed out.
        case afterTimeout
        /// The perform had already been cancelled.
        case afterCancellation
    }

    /// Why the completion was rejected.
    public let reason: Reason
    /// The outcome that was rejected.
    public let rejectedOutcome: ActionOutcomeSummary

    /// The usage error, with code ``ActionError/Code/completedTwice``.
    public var error: ActionError {
        switch reason {
        case .secondCompletion:
            return ActionError(code: .completedTwice, message: "The action completed more than once; only the first outcome was delivered")
        case .afterTimeout:
            return ActionError(code: .completedTwice, message: "The action completed after it timed out; the outcome was not delivered")
        case .afterCancellation:
            return ActionError(code: .completedTwice, message: "The action completed after it was cancelled; the outcome was not delivered")
        }
    }

    /// The reason and the rejected outcome.
    public var description: String {
        "\(reason.rawValue) (rejected \(rejectedOutcome))"
    }
}
