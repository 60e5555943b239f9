import ActionCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
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
    /// `Fault.flaky {"key","failures"}` fails retryably `failures` times per key, then succeeds;
    /// its retry policy allows 4 attempts.
    public static let flaky = action(FlakyAction.self)
    /// `Fault.oversize {"bytes"}` returns an output of that many bytes (past the bus's message
    /// limit, the worker answers `resultTooLarge`).
    public static let oversize = action(OversizeAction.self)
    /// `Fault.block {"ms"}` → `{"blockedMs"}`: holds a thread of a concurrent executor for that
    /// long, as slow synchronous code does.
    public static let block = action(BlockAction.self)

    /// Declares `fail`, `hang`, `crash`, `flaky`, `oversize` and `block`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(fail)
        actions.declare(hang)
        actions.declare(crash)
        actions.declare(flaky)
        actions.declare(oversize)
        actions.declare(block)
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

/// Fails with a retryable `transientFailure` the first `failures` times it is performed for a
/// key, then succeeds: the session retries it under its policy (4 attempts, 10 ms backoff
/// doubling, half jittered), so up to 3 failures end in success and more end in failure.
public enum FlakyAction: Action {
    /// Which counter to use and how many times to fail.
    public struct Input: Codable, Sendable, Hashable {
        /// Attempts are counted per key (within one worker process).
        public var key: String
        /// How many attempts fail before one succeeds.
        public var failures: Int

        /// Creates an input.
        public init(key: String, failures: Int) {
            self.key = key
            self.failures = failures
        }
    }

    /// Which attempt succeeded.
    public struct Output: Codable, Sendable, Hashable {
        /// The attempts made for the key, the successful one included.
        public var attempts: Int

        /// Creates an output.
        public init(attempts: Int) {
            self.attempts = attempts
        }
    }

    /// "Fails retryably a given number of times, then succeeds".
    public static let description = "Fails retryably a given number of times, then succeeds"

    /// 4 attempts; 10 ms, then 20 ms, then 40 ms of backoff, each up to half shorter at random.
    public static let retryPolicy = ActionRetryPolicy.exponential(maxAttempts: 4, initialBackoff: .milliseconds(10))

    private static let attemptsByKey = LockedState<[String: Int]>([:])

    /// Counts the attempt; fails retryably while the count is within `failures`.
    public static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        let attempt = attemptsByKey.withLock { attempts in
            attempts[context.input.key, default: 0] += 1
            return attempts[context.input.key]!
        }
        guard attempt > context.input.failures else {
            let error = ActionError(code: .transientFailure, message: "attempt \(attempt) failed on purpose", retryable: true)
            return completion.completedSync(.failure(error))
        }
        return completion.completedSync(.success(Output(attempts: attempt)))
    }
}

extension ActionError.Code {
    /// A failure that may pass if the action is tried again.
    public static let transientFailure = Self("transientFailure")
}
