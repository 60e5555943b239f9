import ActionWire
import DequeModule

/// Finished outcomes by request id, to answer retries and duplicates.
///
/// An outcome its client has not acknowledged yet is *owed*: it is kept whatever the bounds,
/// until the client's ACK or until `owedUntil` (the client stopped waiting by then), so a
/// resend of a finished request always finds it and never runs the action again. After that,
/// outcomes are *recent*: kept for late duplicates and idempotency keys, oldest evicted first,
/// bounded both in number and in bytes (outputs can be up to the message limit each).
///
/// One table holds both kinds, an ``IDTable`` (the request table's kind): an outcome is kept
/// under the tag its request already has, looked up under the tag its resend's PERFORM is
/// hashed to once for both tables, and evicted by reference, so only an acknowledgement hashes
/// its id; the entry changes from owed to recent in place. (A dictionary keyed by `String`
/// hashed the id four times a request, in a table of a hundred thousand entries.)
struct CompletedOutcomes {
    private final class Entry: IDKeyed {
        let outcome: WireOutcome
        /// The outcome's request id, held here too: a probe that compares it (an ACK's, a
        /// resend's) then reads the entry alone, not the outcome's storage as well, a cache miss
        /// more in a table of thousands. A client's own ids are small strings, stored inline.
        let requestID: String
        let idTag: UInt32
        /// Where the request came from, when known (not for outcomes recovered from the
        /// journal): to tell a resend from a reuse of the id, and the owner from anyone else.
        let origin: OutcomeOrigin?
        /// Until when (a ``ClockOffset``) its client may still be waiting for it; `nil` once it is recent.
        @exclusivity(unchecked) var owedUntil: Int64?
        let size: Int
        /// Which of `order`'s entries for its id is its own, once it is recent.
        @exclusivity(unchecked) var recentSerial: UInt64 = 0

        init(outcome: WireOutcome, idTag: UInt32, origin: OutcomeOrigin?, owedUntil: Int64?) {
            self.outcome = outcome
            self.requestID = outcome.requestID
            self.idTag = idTag
            self.origin = origin
            self.owedUntil = owedUntil
            self.size = CompletedOutcomes.size(of: outcome)
        }

        func hasID(_ bytes: UnsafeRawBufferPointer) -> Bool {
            withIDBytes { $0.elementsEqual(bytes) }
        }

        func withIDBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            try IDTag.withBytes(of: requestID, body)
        }
    }

    let capacity: Int
    let byteCapacity: Int
    private var entries = IDTable<Entry>()
    /// The recent outcomes, oldest first, each with the serial it had when it became recent: an
    /// entry forgotten or kept again since leaves a stale place here, skipped by eviction.
    private var order: Deque<(entry: Entry, serial: UInt64)> = []
    private var nextSerial: UInt64 = 0
    private var recentCount = 0
    /// Bytes of the recent outcomes.
    private(set) var bytes = 0
    private var owedBytes = 0
    /// Outcomes kept until their clients acknowledge them.
    private(set) var owedCount = 0

    init(capacity: Int, byteCapacity: Int = .max) {
        self.capacity = max(0, capacity)
        self.byteCapacity = max(0, byteCapacity)
    }

    /// The outcome kept for `requestID` and where its request came from, when known; `idTag`
    /// is ``IDTable/tag(of:)`` of the id, when the caller has it already.
    func lookup(_ requestID: String, idTag: UInt32? = nil) -> (outcome: WireOutcome, origin: OutcomeOrigin?)? {
        entries[requestID, tag: idTag ?? RequestTable.tag(of: requestID)].map { ($0.outcome, $0.origin) }
    }

    /// The outcomes kept: the recent ones oldest first, then the owed ones. A restart takes them
    /// back in this order as recent ones, so its bounds evict recent outcomes before any that a
    /// client may still be waiting for.
    var oldestFirst: [WireOutcome] {
        order.compactMap { place in place.entry.recentSerial == place.serial ? place.entry.outcome : nil }
            + entries.elements.filter { $0.owedUntil != nil }.map(\.outcome)
    }

    var count: Int { entries.count }

    /// Keeps `outcome`: owed until `owedUntil` (a ``ClockOffset``) when given (its client has yet
    /// to receive it), recent otherwise.
    /// `idTag` is ``IDTable/tag(of:)`` of its request id, when the caller has it already.
    mutating func record(
        _ outcome: WireOutcome, idTag: UInt32? = nil, owedUntilOffset owedUntil: Int64? = nil, origin: OutcomeOrigin? = nil
    ) {
        let entry = Entry(outcome: outcome, idTag: idTag ?? RequestTable.tag(of: outcome.requestID), origin: origin, owedUntil: owedUntil)
        // Owed outcomes are bounded too, by the same byte budget: past it (clients that never
        // acknowledge, huge outputs) a new outcome is only recent.
        if owedUntil == nil || owedBytes + entry.size > byteCapacity { entry.owedUntil = nil }
        if entry.owedUntil == nil && capacity == 0 {
            if let replaced = entries.remove(outcome.requestID) { forget(replaced) }
            return
        }
        // One probe: the entry goes in, and whatever it replaces comes out.
        if let replaced = entries.replace(entry) { forget(replaced) }
        if entry.owedUntil != nil {
            owedBytes += entry.size
            owedCount += 1
        } else {
            keepRecent(entry)
        }
    }

    /// The client has the outcome: it becomes recent (and may be evicted), or is forgotten when
    /// not `keep` (no one can ask for it again).
    mutating func acknowledge(_ requestID: String, keep: Bool = true) {
        IDTag.withBytes(of: requestID) { acknowledge(idBytes: $0, keep: keep) }
    }

    /// ``acknowledge(_:keep:)`` for the request id `bytes`, as an ACK frame holds it.
    mutating func acknowledge(idBytes bytes: UnsafeRawBufferPointer, keep: Bool) {
        guard keep && capacity > 0 else {
            // Forgotten: found and taken out in one probe (an owed one only; a recent one, kept
            // under an idempotency key, stays until it is evicted).
            if let entry = entries.remove(idBytes: bytes, if: { $0.owedUntil != nil }) { forget(entry) }
            return
        }
        guard let entry = entries[idBytes: bytes] else { return }
        acknowledge(entry, keep: keep)
    }

    private mutating func acknowledge(_ entry: Entry, keep: Bool) {
        guard entry.owedUntil != nil else { return }
        forget(entry)
        entry.owedUntil = nil
        if keep && capacity > 0 {
            keepRecent(entry)
        } else {
            entries.remove(entry)
        }
    }

    /// Owed outcomes whose clients stopped waiting become recent (call it now and then: it
    /// looks at every outcome kept, unless none is owed).
    mutating func expireOwed(now: ContinuousClock.Instant) {
        guard owedCount > 0 else { return }
        let now = ClockOffset.of(now)
        let expired = entries.elements.filter { $0.owedUntil.map { $0 <= now } == true }
        for entry in expired { acknowledge(entry, keep: true) }
    }

    /// Takes an entry's share out of the totals (its place in `order`, if any, is skipped when
    /// eviction reaches it).
    private mutating func forget(_ entry: Entry) {
        if entry.owedUntil != nil {
            owedBytes -= entry.size
            owedCount -= 1
        } else {
            bytes -= entry.size
            recentCount -= 1
            entry.recentSerial = 0
        }
    }

    /// Counts `entry` (in the table, no longer owed) as recent, evicting the oldest recent ones
    /// past the bounds.
    private mutating func keepRecent(_ entry: Entry) {
        nextSerial += 1
        entry.recentSerial = nextSerial
        order.append((entry, nextSerial))
        bytes += entry.size
        recentCount += 1
        // Owed outcomes count against the byte budget too: together they stay within it.
        while recentCount > capacity || (bytes + owedBytes > byteCapacity && recentCount > 1), let oldest = order.popFirst() {
            // A stale place: the entry was forgotten (its serial is 0) or is recent again under a later serial.
            guard oldest.entry.recentSerial == oldest.serial else { continue }
            entries.remove(oldest.entry)
            forget(oldest.entry)
        }
    }

    /// Roughly what an outcome costs to keep: its variable-length fields.
    static func size(of outcome: WireOutcome) -> Int {
        outcome.byteCount + 64
    }
}
