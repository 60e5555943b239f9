import ActionCore
import Dispatch
import Foundation

/// One step of a session's history, for checkers of session order: counts the session's steps
/// on this worker and says when it ran (wall clock, microseconds since 1970), having held the
/// session for `ms` milliseconds without blocking a thread.
public enum StepAction: Action {
    /// How long the step takes.
    public struct Input: Codable, Sendable, Hashable {
        /// Milliseconds, from 0 to 60 000 (absent: 0).
        public var ms: Int?

        /// Creates an input.
        public init(ms: Int? = nil) {
            self.ms = ms
        }
    }

    /// The step's number in its session on this worker, and when it ran.
    public struct Output: Codable, Sendable, Hashable {
        /// How many steps the session has taken on this worker, this one included.
        public var n: Int
        /// When it started, in microseconds since 1970.
        public var startedUs: Int64
        /// When it ended, in microseconds since 1970.
        public var endedUs: Int64

        /// Creates an output.
        public init(n: Int, startedUs: Int64, endedUs: Int64) {
            self.n = n
            self.startedUs = startedUs
            self.endedUs = endedUs
        }
    }

    /// "Counts the session's steps and says when each ran".
    public static let description = "Counts the session's steps and says when each ran"

    private static let stepsBySession = LockedState<[String: Int]>([:])

    private static var nowMicroseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1_000_000).rounded()) }

    /// Counts the step, then completes after `ms` from a timer.
    public static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        let ms = context.input.ms ?? 0
        guard (0...60_000).contains(ms) else {
            return completion.completedSync(.failure(ActionError(code: .invalidInput, message: "ms must be from 0 to 60000, got \(ms)")))
        }
        let startedUs = nowMicroseconds
        let n = stepsBySession.withLock { steps in
            steps[context.sessionName, default: 0] += 1
            return steps[context.sessionName, default: 0]
        }
        let pending = completion.willCompleteAsync()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) {
            guard !context.isCancelled else { return }
            pending.completed(.success(Output(n: n, startedUs: startedUs, endedUs: nowMicroseconds)))
        }
        return pending
    }
}
