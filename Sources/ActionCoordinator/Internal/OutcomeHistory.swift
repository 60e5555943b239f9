import ActionJournal
import ActionWire
import DequeModule

/// The outcome stream's history: each published outcome takes the next position, and the most
/// recent ones are kept so that a subscriber can replay from a position (REPLAY) after it
/// missed some, across restarts and failovers (the journal records every outcome with its
/// position, and a compaction carries the kept ones over).
///
/// A position is replayed only once the batch that published it has passed the commit gate:
/// what a replay shows is on the journal and on every in-sync standby, so a new leader has it
/// too, at the same position. Loop thread only.
struct OutcomeHistory {
    /// The most outcomes kept (0: none; positions are still given).
    let capacity: Int
    /// The most bytes of outcomes kept; the oldest go first.
    let byteCapacity: Int
    /// How long an outcome is kept, in milliseconds (`nil`: until the other bounds evict it).
    let maxAgeMilliseconds: UInt64?

    /// The last position given.
    private(set) var head: UInt64 = 0
    /// The last position a replay may show.
    private(set) var released: UInt64 = 0
    private(set) var kept = Deque<PublishedOutcome>()
    private var keptBytes = 0

    init(capacity: Int, byteCapacity: Int, maxAge: Duration?) {
        self.capacity = capacity
        self.byteCapacity = byteCapacity
        maxAgeMilliseconds = maxAge.map { UInt64(max(0, $0.wholeNanoseconds / 1_000_000)) }
    }

    /// The oldest position kept; `head + 1` when none is.
    var oldest: UInt64 { kept.first?.position ?? head + 1 }

    /// Gives `outcome` the next position and keeps it.
    mutating func append(_ outcome: WireOutcome, publishedAt: UInt64) -> UInt64 {
        head += 1
        guard capacity > 0 else { return head }
        kept.append(PublishedOutcome(position: head, publishedAt: publishedAt, outcome: outcome))
        keptBytes += outcome.byteCount
        while kept.count > capacity || (keptBytes > byteCapacity && kept.count > 1) { dropOldest() }
        return head
    }

    /// Positions up to `position` may be replayed: their batch is durable (and replicated).
    mutating func release(upTo position: UInt64) {
        released = max(released, min(position, head))
    }

    /// Takes back what a journal held: every position it recorded is durable.
    mutating func restore(_ published: [PublishedOutcome], head recoveredHead: UInt64, now: UInt64) {
        head = max(head, recoveredHead)
        released = head
        for outcome in published.suffix(capacity) where outcome.position > (kept.last?.position ?? 0) {
            kept.append(outcome)
            keptBytes += outcome.outcome.byteCount
        }
        while kept.count > capacity || (keptBytes > byteCapacity && kept.count > 1) { dropOldest() }
        forgetExpired(now: now)
    }

    /// Drops what is older than the retention age.
    mutating func forgetExpired(now: UInt64) {
        guard let maxAgeMilliseconds else { return }
        while let first = kept.first, first.publishedAt + maxAgeMilliseconds < now { dropOldest() }
    }

    private mutating func dropOldest() {
        keptBytes -= kept.removeFirst().outcome.byteCount
    }

    /// The released outcomes matching `prefix` from position `from` on: at most `maxOutcomes`
    /// of them and about `maxBytes`, looking at no more than `maxScanned` outcomes (a filter
    /// that matches little moves on by `next` all the same).
    func chunk(from: UInt64, prefix: [UInt8], maxOutcomes: Int, maxBytes: Int, maxScanned: Int, instance: String) -> ReplayChunk {
        var chunk = ReplayChunk(oldest: oldest, head: released, next: from, outcomes: [], instance: instance)
        // Older than what is kept, or beyond what was published: the caller says which.
        guard from >= oldest, from <= released else { return chunk }
        var index = firstIndex(atOrAfter: from)
        var bytes = 0, scanned = 0
        while index < kept.endIndex, scanned < maxScanned, chunk.outcomes.count < maxOutcomes, bytes < maxBytes {
            let entry = kept[index]
            guard entry.position <= released else { break }
            if OutcomeTopic.matches(entry.outcome, prefix: prefix) {
                chunk.outcomes.append(PositionedOutcome(position: entry.position, outcome: entry.outcome))
                bytes += entry.outcome.byteCount
            }
            chunk.next = entry.position + 1
            scanned += 1
            index += 1
        }
        if index == kept.endIndex || kept[index].position > released { chunk.next = released + 1 }
        return chunk
    }

    /// The index of the first kept outcome at or after `position` (positions only grow).
    private func firstIndex(atOrAfter position: UInt64) -> Int {
        var low = kept.startIndex, high = kept.endIndex
        while low < high {
            let middle = (low + high) / 2
            if kept[middle].position < position { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
