import Dispatch

/// Runs work on a serial `DispatchQueue`, inline when already on it.
///
/// Running inline is what makes a nested perform on the same serial queue safe: a plain
/// `queue.sync` from inside the queue would deadlock, and `queue.async` would reorder.
public final class SerialQueueExecutor: ActionExecutor {
    /// The serial queue work runs on.
    public let queue: DispatchQueue
    /// The queue's label.
    public let name: String?
    private let identity = QueueIdentity()

    /// Creates an executor with a new serial queue.
    public convenience init(label: String, qos: DispatchQoS = .unspecified) {
        self.init(queue: DispatchQueue(label: label, qos: qos))
    }

    /// Wraps an existing queue, which must be serial (the inline rule assumes one block at a time).
    public init(queue: DispatchQueue) {
        self.queue = queue
        self.name = queue.label
        identity.mark(queue)
    }

    /// Whether the calling code runs on this executor's queue.
    public var isCurrent: Bool {
        identity.isCurrent
    }

    /// Runs `work` inline when already on the queue, otherwise asynchronously on it.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        if isCurrent {
            work()
        } else {
            queue.async(execute: work)
        }
    }

    /// Runs `work` inline when already on the queue, otherwise asynchronously on it, and starts
    /// nothing else on the queue until `work` calls `end`.
    ///
    /// The queue is suspended from inside the block (which takes effect when the block
    /// returns) and resumed by `end`. Work nested inside `work`'s synchronous part still runs
    /// inline, so the seed's nested-submit deadlock cannot happen. Work that drops `end` without
    /// calling it ends it when the handle is released. The main queue cannot be suspended
    /// (Dispatch ignores it for its global queues): on it, other work may run while `work`
    /// waits to end.
    public func submit(_ work: @escaping @Sendable (_ end: @escaping @Sendable () -> Void) -> Void) {
        let queue = self.queue
        submit {
            queue.suspend()
            let ended = EndOnce { queue.resume() }
            work { ended.end() }
        }
    }
}
