import ActionWire
import DequeModule

/// The RESULT messages a worker sent lately, kept so that a group's new leader gets them again.
///
/// A result sent to a leader that then died (or was deposed) before it recorded it is lost
/// with it: the new leader takes the request back from its journal and would run it again.
/// Sent again after the worker's READY to the next member, such a result answers the request
/// there (the coordinator adopts it); one the new leader already has is discarded and counted.
/// Bounded by age and bytes, so a busy worker keeps only its last moments. I/O thread only.
struct RecentResults {
    /// How long a RESULT is kept: a leader is replaced within about a lease (3 s) and a
    /// worker's move to the next member, with room to spare.
    static let maxAge: Duration = .seconds(10)
    /// The most bytes kept.
    static let maxBytes = 16 << 20

    private var messages = Deque<(sentAt: ContinuousClock.Instant, frames: PackedFrames)>()
    private var bytes = 0

    /// Keeps a RESULT just sent.
    mutating func sent(_ frames: PackedFrames, at now: ContinuousClock.Instant) {
        messages.append((now, frames))
        bytes += frames.bytes.count
        while bytes > Self.maxBytes, let first = messages.popFirst() { bytes -= first.frames.bytes.count }
    }

    /// The RESULTs sent within ``maxAge`` of `now`, oldest first; older ones are dropped.
    mutating func recent(at now: ContinuousClock.Instant) -> [PackedFrames] {
        while let first = messages.first, now - first.sentAt > Self.maxAge {
            bytes -= first.frames.bytes.count
            messages.removeFirst()
        }
        return messages.map(\.frames)
    }
}
