import ActionWire
import DequeModule

/// The RESULT messages a worker sent lately, kept to be sent again (RESENT) to the next
/// coordinator that welcomes it.
///
/// A result can be lost after it left: the coordinator died before it read it, or read it and
/// died before its journal (and, in a group, the standbys) had it. The coordinator that comes
/// next takes the request back from its journal and would run it a second time; when the
/// worker also runs the session's next request, that one, adopted as running, would have
/// started before the one ahead of it. Sent again, the result answers the request instead.
///
/// Messages are kept whole, as RESENTs of the same records (a copy with the header swapped,
/// made as each is kept), for ``window``, and no more than ``maxBytes`` of them: a loss is found within a lease and a
/// heartbeat expiry (seconds), so older results reached a coordinator that kept them.
struct RecentResults {
    /// How long a sent RESULT is kept.
    let window: Duration
    /// The most bytes kept; the oldest messages go first.
    let maxBytes: Int
    private var messages: Deque<(sentAt: ContinuousClock.Instant, message: PackedFrames)> = []
    private var bytes = 0

    init(window: Duration, maxBytes: Int) {
        self.window = window
        self.maxBytes = maxBytes
    }

    var isEnabled: Bool { window > .zero && maxBytes > 0 }

    /// Keeps `message`, a RESULT just sent, as the RESENT of its records, and lets go of what is
    /// past the window or the limit.
    mutating func keep(_ message: PackedFrames, sentAt now: ContinuousClock.Instant) {
        guard isEnabled, message.bytes.count <= maxBytes else { return }
        // A copy of its size: sharing the writer's buffer would keep all its capacity here, and
        // make the writer allocate that capacity anew for its next message.
        messages.append((now, WorkerMessage.resent(fromResult: message)))
        bytes += message.bytes.count
        forget(before: now - window)
        while bytes > maxBytes, let oldest = messages.popFirst() { bytes -= oldest.message.bytes.count }
    }

    /// The kept RESENTs still inside the window at `now`, oldest first.
    mutating func resendable(at now: ContinuousClock.Instant) -> [PackedFrames] {
        forget(before: now - window)
        return messages.map(\.message)
    }

    private mutating func forget(before cutoff: ContinuousClock.Instant) {
        while let oldest = messages.first, oldest.sentAt < cutoff {
            bytes -= oldest.message.bytes.count
            messages.removeFirst()
        }
    }
}
