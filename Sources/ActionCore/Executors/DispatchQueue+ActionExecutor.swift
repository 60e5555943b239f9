import Dispatch

/// A `DispatchQueue` is an executor, as in the *Executors* seed: its work goes on with `async`.
///
/// It cannot tell whether it is serial, so it does not count as busy until an `end` (use
/// ``SerialQueueExecutor`` for that, and for nested work on a serial queue to run inline).
extension DispatchQueue: ActionExecutor {
    /// The queue's label.
    public var name: String? { label }

    /// Whether the calling code runs on this queue (it is tagged on first use).
    public var isCurrent: Bool { QueueIdentity.isCurrent(self) }

    /// Runs `work` asynchronously on the queue.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        async(execute: work)
    }
}
