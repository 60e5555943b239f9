import ActionCore
import Dispatch

/// Blocks the thread it runs on for `ms` milliseconds, then succeeds: what slow synchronous code
/// (a blocking call, a long computation) does to its executor. Unlike `Fault.hang`, which holds
/// no thread at all, it shows whether anything else (a worker's heartbeats, its other requests)
/// waits on the executor's threads.
public enum BlockAction: Action {
    /// How long to block.
    public struct Input: Codable, Sendable, Hashable {
        /// Milliseconds, 0 to 60,000.
        public var ms: Int

        /// Creates an input.
        public init(ms: Int) {
            self.ms = ms
        }
    }

    /// How long it blocked.
    public struct Output: Codable, Sendable, Hashable {
        /// The milliseconds the thread was held (the requested duration).
        public var blockedMs: Int

        /// Creates an output.
        public init(blockedMs: Int) {
            self.blockedMs = blockedMs
        }
    }

    /// "Blocks its thread for ms milliseconds".
    public static let description = "Blocks its thread for ms milliseconds"

    /// The longest block: a minute.
    public static let maximumMilliseconds = 60_000

    /// A concurrent pool of its own: each request holds one of its threads.
    public static let executor = ActionExecutorSelection.executor(
        DispatchQueueExecutor(label: "ExampleFeatures.Fault.block", attributes: .concurrent)
    )

    /// Sleeps the executor's thread, then completes synchronously; `ms` outside 0...60,000 is
    /// invalid input.
    public static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        let ms = context.input.ms
        guard (0...maximumMilliseconds).contains(ms) else {
            let error = ActionError(code: .invalidInput, message: "ms must be between 0 and \(maximumMilliseconds), got \(ms)")
            return completion.completedSync(.failure(error))
        }
        // Blocking on purpose: the point of this action is a thread that nothing else can use.
        // A semaphore nobody signals parks the thread until the deadline.
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(ms))
        return completion.completedSync(.success(Output(blockedMs: ms)))
    }
}
