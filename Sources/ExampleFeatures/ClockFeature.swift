import ActionCore
import Dispatch

/// `Clock`: waits without blocking a thread.
public enum ClockFeature: Feature {
    /// "Clock".
    public static let name = "Clock"
    /// "Waits without blocking a thread".
    public static let description = "Waits without blocking a thread"

    /// `Clock.sleep {"ms"}` → `{"sleptMs"}`, completed asynchronously by a timer.
    public static let sleep = action(SleepAction.self)

    /// Declares `sleep`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(sleep)
    }
}

/// Completes after the requested number of milliseconds, from a timer (no thread is blocked).
public enum SleepAction: Action {
    /// How long to sleep.
    public struct Input: Codable, Sendable, Hashable {
        /// Milliseconds, at least 0.
        public var ms: Int

        /// Creates an input.
        public init(ms: Int) {
            self.ms = ms
        }
    }

    /// How long it slept.
    public struct Output: Codable, Sendable, Hashable {
        /// The milliseconds slept (the requested duration).
        public var sleptMs: Int

        /// Creates an output.
        public init(sleptMs: Int) {
            self.sleptMs = sleptMs
        }
    }

    /// "Completes after ms milliseconds".
    public static let description = "Completes after ms milliseconds"

    /// A serial queue of its own: the perform itself only arms a timer.
    public static let executor = ActionExecutorSelection.executor(SerialQueueExecutor(label: "ExampleFeatures.Clock"))

    /// Arms a timer and completes asynchronously when it fires; negative `ms` is invalid input.
    public static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        let ms = context.input.ms
        guard ms >= 0 else {
            return completion.completedSync(.failure(ActionError(code: .invalidInput, message: "ms must not be negative, got \(ms)")))
        }
        let pending = completion.willCompleteAsync()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) {
            // Cancelled or past its deadline, the caller already has its outcome.
            guard !context.isCancelled else { return }
            pending.completed(.success(Output(sleptMs: ms)))
        }
        return pending
    }
}
