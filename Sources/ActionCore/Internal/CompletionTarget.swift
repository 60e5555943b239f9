import Dispatch

/// Where a caller's completion handler runs.
enum CompletionTarget: Sendable {
    /// The queue the caller chose.
    case queue(DispatchQueue)
    /// The action's executor (Flint 1.0's default).
    case executor(any ActionExecutor)
    /// Whatever thread completes (used by the async API, which resumes a continuation).
    case immediate

    /// Runs `work` on the target, inline when already there: never an extra hop.
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
        case .immediate:
            work()
        }
    }

    /// Hands `value` to `handler` on the target. Where the handler runs at once (the immediate
    /// target) no closure is made for it: a worker's every outcome goes this way.
    func deliver<Value: Sendable>(_ value: Value, to handler: @escaping @Sendable (Value) -> Void) {
        if case .immediate = self {
            handler(value)
        } else {
            run { handler(value) }
        }
    }
}
