import ActionCore

#if canImport(Glibc)
import Glibc
#endif

/// `Fault`: actions that misbehave on purpose, to test failure handling.
public enum FaultFeature: Feature {
    /// "Fault".
    public static let name = "Fault"
    /// "Misbehaves on purpose".
    public static let description = "Misbehaves on purpose"

    /// `Fault.fail {"message"}` → failure `actionFailed` with that message.
    public static let fail = action(FailAction.self)
    /// `Fault.hang {}` never completes (so it times out).
    public static let hang = action(HangAction.self)
    /// `Fault.crash {}` aborts the worker process.
    public static let crash = action(CrashAction.self)

    /// Declares `fail`, `hang` and `crash`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(fail)
        actions.declare(hang)
        actions.declare(crash)
    }
}

/// Fails with `actionFailed` and the given message.
public enum FailAction: Action {
    /// The failure message.
    public struct Input: Codable, Sendable, Hashable {
        /// The message the failure carries.
        public var message: String

        /// Creates an input.
        public init(message: String) {
            self.message = message
        }
    }

    /// "Fails with the given message".
    public static let description = "Fails with the given message"

    /// Completes with failure `actionFailed`.
    public static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        completion.completedSync(.failure(ActionError(code: .actionFailed, message: context.input.message)))
    }
}

/// Promises to complete and never does: only its deadline ends it.
public enum HangAction: Action {
    /// "Never completes".
    public static let description = "Never completes"

    /// Returns an async handle and drops it.
    public static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        context.logger.debug("Hanging until the deadline")
        return completion.willCompleteAsync()
    }
}

/// Aborts the whole worker process: a request that kills its worker is redelivered only up to
/// the coordinator's `maxDeliveries`, then fails `poisoned`.
public enum CrashAction: Action {
    /// "Aborts the worker process".
    public static let description = "Aborts the worker process"

    /// Logs, then aborts.
    public static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        context.logger.critical("Fault.crash: aborting the process on purpose")
        abort()
    }
}
