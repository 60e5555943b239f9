import Foundation

/// An `OperationQueue` is an executor, as in the *Executors* seed: its work goes on as operations. Its `name`
/// is the queue's own.
extension OperationQueue: ActionExecutor {
    /// Whether the calling code runs inside an operation of this queue.
    public var isCurrent: Bool { OperationQueue.current === self }

    /// Adds `work` as an operation.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        addOperation(work)
    }
}
