import Dispatch
import Synchronization

/// Recognises "am I running on this queue" through a queue-specific value.
///
/// Each identity owns its own key, so marking a queue never disturbs other users of it.
/// As in Flint, a queue that only *targets* the marked queue is also reported as current.
final class QueueIdentity: Sendable {
    private static let nextToken = Atomic<UInt64>(1)

    private let key = DispatchSpecificKey<UInt64>()
    private let token = QueueIdentity.nextToken.wrappingAdd(1, ordering: .relaxed).oldValue

    /// Tags `queue` so ``isCurrent`` can recognise it.
    func mark(_ queue: DispatchQueue) {
        queue.setSpecific(key: key, value: token)
    }

    /// Whether the calling code runs on the marked queue.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == token
    }
}

extension QueueIdentity {
    /// The key used to tag queues the caller hands us (completion queues) that we did not create.
    private static let foreignQueueKey = DispatchSpecificKey<UInt64>()

    /// Whether the calling code runs on `queue`, for any queue (tagging it on first use).
    static func isCurrent(_ queue: DispatchQueue) -> Bool {
        let token: UInt64
        if let existing = queue.getSpecific(key: foreignQueueKey) {
            token = existing
        } else {
            // Two threads may tag the same queue at once; reading back makes both agree on the winner.
            queue.setSpecific(key: foreignQueueKey, value: nextToken.wrappingAdd(1, ordering: .relaxed).oldValue)
            guard let stored = queue.getSpecific(key: foreignQueueKey) else { return false }
            token = stored
        }
        return DispatchQueue.getSpecific(key: foreignQueueKey) == token
    }
}
