import ActionCore
import Foundation

/// `Sequence`: per-session state.
public enum SequenceFeature: Feature {
    /// "Sequence".
    public static let name = "Sequence"
    /// "Counts performs per session".
    public static let description = "Counts performs per session"

    /// `Sequence.next {}` → `{"n"}`: how many `Sequence.next` this session has performed, this one included.
    public static let next = action(NextAction.self)
    /// `Sequence.step {"ms"}` → `{"n","startedUs","endedUs"}`: the session's steps on this
    /// worker, and when this one ran (a history checker's witness of session order).
    public static let step = action(StepAction.self)

    /// Declares `next` and `step`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(next)
        actions.declare(step)
    }
}

/// Counts, per session name, how many times it was performed.
public enum NextAction: Action {
    /// The count.
    public struct Output: Codable, Sendable, Hashable {
        /// How many `Sequence.next` the session has performed, this one included.
        public var n: Int

        /// Creates an output.
        public init(n: Int) {
            self.n = n
        }
    }

    /// "Returns the session's next sequence number".
    public static let description = "Returns the session's next sequence number"

    private static let countsBySession = LockedState<[String: Int]>([:])

    /// Increments and returns the session's count.
    public static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        let n = countsBySession.withLock { counts in
            counts[context.sessionName, default: 0] += 1
            return counts[context.sessionName, default: 0]
        }
        return completion.completedSync(.success(Output(n: n)))
    }
}
