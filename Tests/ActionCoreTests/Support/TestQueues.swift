import ActionCore
import Dispatch

/// A queue tagged with a queue-specific value, so code can check "am I on it" independently of ActionCore.
struct TaggedQueue: Sendable {
    static let key = DispatchSpecificKey<String>()

    let queue: DispatchQueue
    let tag: String

    init(_ tag: String, attributes: DispatchQueue.Attributes = []) {
        self.tag = tag
        self.queue = DispatchQueue(label: "test.\(tag)", attributes: attributes)
        queue.setSpecific(key: Self.key, value: tag)
    }

    /// The tag of the queue the caller runs on, if it is a tagged queue.
    static var currentTag: String? {
        DispatchQueue.getSpecific(key: key)
    }
}

enum TestQueues {
    static let actionSerial = TaggedQueue("action-serial")
    static let actionConcurrent = TaggedQueue("action-concurrent", attributes: .concurrent)
    static let completion = TaggedQueue("completion")
    static let serialExecutor = SerialQueueExecutor(queue: actionSerial.queue)
    static let concurrentExecutor = DispatchQueueExecutor(queue: actionConcurrent.queue)
}
