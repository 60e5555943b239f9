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
/// made as each is kept), for ``window``, and no more than ``maxBytes`` of them: a loss is
/// found within a lease and a heartbeat expiry (seconds), so older results reached a
/// coordinator that kept them.
///
/// Most go much sooner: the worker's heartbeats carry a mark, and the coordinator answers a
/// mark once everything the worker sent before it is durable (``taken(before:registration:)``).
/// Only results sent, answering requests that came since the worker's last READY, go that way:
/// a result that could not leave never reached a coordinator, and one sent to a coordinator
/// before, or answering a request a coordinator before dispatched (this one may hold its answer
/// in memory only, as an orphan run), stays for the next one.
struct RecentResults {
    /// How long a sent RESULT is kept.
    let window: Duration
    /// The most bytes kept; the oldest messages go first.
    let maxBytes: Int
    private var messages: Deque<Kept> = []
    private var bytes = 0

    private struct Kept {
        let sentAt: ContinuousClock.Instant
        let message: PackedFrames
        /// The oldest READY a request it answers came after (the worker counts them).
        let registration: UInt64
        /// The worker's last heartbeat mark when it was sent: a mark above it covers it.
        let mark: UInt64
        /// Whether it left (queued on the connection); one that did not may still reach the next.
        let wasSent: Bool
    }

    init(window: Duration, maxBytes: Int) {
        self.window = window
        self.maxBytes = maxBytes
    }

    var isEnabled: Bool { window > .zero && maxBytes > 0 }

    /// How many RESULT messages are kept now.
    var count: Int { messages.count }

    /// Keeps `message`, a RESULT just sent (or not, `wasSent` false), as the RESENT of its
    /// records, and lets go of what is past the window or the limit.
    mutating func keep(
        _ message: PackedFrames, sentAt now: ContinuousClock.Instant, registration: UInt64, mark: UInt64, wasSent: Bool
    ) {
        guard isEnabled, message.bytes.count <= maxBytes else { return }
        // A copy of its size: sharing the writer's buffer would keep all its capacity here, and
        // make the writer allocate that capacity anew for its next message.
        messages.append(Kept(
            sentAt: now, message: WorkerMessage.resent(fromResult: message), registration: registration, mark: mark, wasSent: wasSent
        ))
        bytes += message.bytes.count
        forget(before: now - window)
        while bytes > maxBytes, let oldest = messages.popFirst() { bytes -= oldest.message.bytes.count }
    }

    /// The coordinator has made durable everything sent before the heartbeat with `mark`: the
    /// results sent since READY number `registration`, before that heartbeat, go.
    mutating func taken(before mark: UInt64, registration: UInt64) {
        func isTaken(_ kept: Kept) -> Bool { kept.registration == registration && kept.wasSent && kept.mark < mark }
        while let oldest = messages.first, isTaken(oldest) {
            bytes -= oldest.message.bytes.count
            messages.removeFirst()
        }
        // One that stays (from an earlier registration, or not sent) may stand in front: then
        // the rest is filtered.
        guard messages.contains(where: isTaken) else { return }
        messages.removeAll(where: isTaken)
        bytes = messages.reduce(0) { $0 + $1.message.bytes.count }
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
