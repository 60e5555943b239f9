import Dispatch
import Synchronization

/// Recognises "am I running on this queue" through a queue-specific value.
///
/// Each identity owns its own key, so marking a queue never disturbs other users of it.
///
/// A queue that *targets* the marked queue is reported as current too: Dispatch looks a
/// queue-specific value up through the target chain, and work on such a queue runs as the
/// marked queue's (one block at a time with it, when it is serial), so running inline there is
/// as safe as on the queue itself. The marked queue's own target is not: work there runs elsewhere than on the marked
/// queue, which then gets the work asynchronously. Flint differs: its dispatcher runs an action
/// with `sync` on the action's queue when it cannot tell it is already there, so a target chain
/// that hides that can deadlock, and its Threading guide rules target queues out. ActionBus
/// never waits on a queue; a target queue costs at most a hop (docs/FLINT.md, "Threading").
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
