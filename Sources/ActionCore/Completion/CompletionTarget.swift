import Dispatch

/// Where a caller's completion handler runs.
@usableFromInline
enum CompletionTarget: Sendable {
    /// The queue the caller chose.
    case queue(DispatchQueue)
    /// An executor: the caller's operation queue, or the action's executor (Flint's default).
    case executor(any ActionExecutor)
    /// Whatever thread completes (used by the async API, which resumes a continuation).
    case immediate
    /// Whatever thread completes, for a host that forwards the outcome (a worker): the perform
    /// was requested by the host, not by an action, so it is not reported as one of the
    /// session's unrequested performs.
    case forwarded

    /// Where an attempt that may be retried delivers: at once, keeping the host's mark.
    @inlinable
    var immediateKeepingOrigin: CompletionTarget {
        if case .forwarded = self { return .forwarded }
        return .immediate
    }

    /// Whether the host requested the perform (``forwarded``).
    @inlinable
    var isForwarded: Bool {
        if case .forwarded = self { return true }
        return false
    }

    /// Runs `work` on the target, inline when already there: never an extra hop.
    @usableFromInline
    func run(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .queue(let queue):
            if QueueIdentity.isCurrent(queue) {
                work()
            } else {
                queue.async(execute: work)
            }
        case .executor(let executor):
            executor.execute(work)
        case .immediate, .forwarded:
            work()
        }
    }

    /// Hands `value` to `handler` on the target. Where the handler runs at once (the immediate
    /// target) no closure is made for it: a worker's every outcome goes this way.
    @inlinable
    func deliver<Value: Sendable>(_ value: Value, to handler: @escaping @Sendable (Value) -> Void) {
        switch self {
        case .immediate, .forwarded:
            handler(value)
        case .queue, .executor:
            run { handler(value) }
        }
    }
}
