import Dispatch

/// Runs work asynchronously on a `DispatchQueue`, serial or concurrent.
///
/// Unlike ``SerialQueueExecutor`` every submit is asynchronous; use it for concurrent pools of
/// CPU work. `isCurrent` cannot recognise the global queues, so give it a queue of its own.
public final class DispatchQueueExecutor: ActionExecutor {
    /// The queue work runs on.
    public let queue: DispatchQueue
    /// The queue's label.
    public let name: String?
    private let identity = QueueIdentity()

    /// Wraps `queue`.
    public init(queue: DispatchQueue) {
        self.queue = queue
        self.name = queue.label
        identity.mark(queue)
    }

    /// Creates an executor with a new queue; pass `.concurrent` for a pool.
    public convenience init(label: String, qos: DispatchQoS = .unspecified, attributes: DispatchQueue.Attributes = []) {
        self.init(queue: DispatchQueue(label: label, qos: qos, attributes: attributes))
    }

    /// Whether the calling code runs on this executor's queue.
    public var isCurrent: Bool {
        identity.isCurrent
    }

    /// Runs `work` asynchronously on the queue.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
