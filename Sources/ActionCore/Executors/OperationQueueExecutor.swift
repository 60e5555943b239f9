import Foundation

/// Runs work as operations on an `OperationQueue`.
public final class OperationQueueExecutor: ActionExecutor {
    /// The queue operations are added to.
    public let queue: OperationQueue
    /// The queue's name.
    public let name: String?

    /// Wraps `queue`.
    public init(queue: OperationQueue) {
        self.queue = queue
        self.name = queue.name
    }

    /// Creates an executor with a new queue running at most `maxConcurrentOperationCount` operations at once.
    public convenience init(name: String, maxConcurrentOperationCount: Int = OperationQueue.defaultMaxConcurrentOperationCount) {
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = maxConcurrentOperationCount
        self.init(queue: queue)
    }

    /// Whether the calling code runs inside an operation of this queue.
    public var isCurrent: Bool {
        OperationQueue.current === queue
    }

    /// Adds `work` as an operation.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        queue.addOperation(work)
    }
}
