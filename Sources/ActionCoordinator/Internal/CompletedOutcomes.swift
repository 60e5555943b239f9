import ActionWire
import DequeModule

/// Finished outcomes kept by request id after their clients have them, to answer retries and
/// duplicates, and the byte budget they share with the outcomes still *owed*.
///
/// An outcome its client has not acknowledged yet is owed: it stays in the request table, in
/// its finished request (see ``PendingRequest/owedOutcome``), until the client's ACK or until
/// its client stopped waiting, so a resend of a finished request always finds it and never
/// runs the action again; this type only counts it (``owe(_:)``, ``settle(_:)``). After that,
/// outcomes are *recent*, held here: kept for late duplicates and idempotency keys, oldest
/// evicted first, bounded both in number and in bytes (outputs can be up to the message limit
/// each), the owed ones' bytes counted against the same budget.
///
/// An ``IDTable`` (the request table's kind): an outcome is kept under the tag its request
/// already has and evicted by reference. (A dictionary keyed by `String` hashed the id four
/// times a request, in a table of a hundred thousand entries.)
struct CompletedOutcomes {
    private final class Entry: IDKeyed {
        let outcome: WireOutcome
        /// The outcome's request id, held here too: a probe that compares it reads the entry
        /// alone, not the outcome's storage as well. A client's own ids are small strings,
        /// stored inline.
        let requestID: String
        let idTag: UInt32
        /// Where the request came from, when known (not for outcomes recovered from the
        /// journal): to tell a resend from a reuse of the id, and the owner from anyone else.
        let origin: OutcomeOrigin?
        let size: Int
        /// Which of `order`'s entries for its id is its own; 0 once it is forgotten.
        @exclusivity(unchecked) var recentSerial: UInt64 = 0

        init(outcome: WireOutcome, idTag: UInt32, origin: OutcomeOrigin?) {
            self.outcome = outcome
            self.requestID = outcome.requestID
            self.idTag = idTag
            self.origin = origin
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
    /// The recent outcomes, oldest first, each with the serial it had when it was kept: an
    /// entry replaced since leaves a stale place here, skipped by eviction.
    private var order: Deque<(entry: Entry, serial: UInt64)> = []
    private var nextSerial: UInt64 = 0
    /// Bytes of the recent outcomes.
    private(set) var bytes = 0
    /// Bytes of the owed outcomes, which the request table holds.
    private(set) var owedBytes = 0
    /// Outcomes owed to their clients, which the request table holds.
    private(set) var owedCount = 0

    init(capacity: Int, byteCapacity: Int = .max) {
        self.capacity = max(0, capacity)
        self.byteCapacity = max(0, byteCapacity)
    }

    /// The recent outcome kept for `requestID` and where its request came from, when known;
    /// `idTag` is ``IDTable/tag(of:)`` of the id, when the caller has it already.
    func lookup(_ requestID: String, idTag: UInt32? = nil) -> (outcome: WireOutcome, origin: OutcomeOrigin?)? {
        // Every PERFORM asks; with clients' own ids nothing is kept as recent, and the id's
        // bytes need not be found then.
        guard !entries.isEmpty else { return nil }
        return entries[requestID, tag: idTag ?? RequestTable.tag(of: requestID)].map { ($0.outcome, $0.origin) }
    }

    /// The recent outcomes, oldest first.
    var oldestFirst: [WireOutcome] {
        order.compactMap { place in place.entry.recentSerial == place.serial ? place.entry.outcome : nil }
    }

    /// How many recent outcomes are kept.
    var count: Int { entries.count }

    // MARK: Owed outcomes

    /// Whether an owed outcome holding `size` bytes (the outcome's ``size(of:)`` and its
    /// request's) may be owed: owed outcomes stay within the byte budget too, so past it
    /// (clients that never acknowledge, huge inputs or outputs) a new outcome is only recent.
    func mayOwe(_ size: Int) -> Bool {
        owedBytes + size <= byteCapacity
    }

    /// Counts an outcome of `size` bytes as owed (``mayOwe(_:)`` said it may be).
    mutating func owe(_ size: Int) {
        owedBytes += size
        owedCount += 1
    }

    /// An owed outcome of `size` bytes is no longer owed: its client has it, or stopped waiting.
    mutating func settle(_ size: Int) {
        owedBytes -= size
        owedCount -= 1
    }

    // MARK: Recent outcomes

    /// Keeps `outcome` as recent (in place of any kept for its id), evicting the oldest past
    /// the bounds. `idTag` is ``IDTable/tag(of:)`` of its request id, when the caller has it already.
    mutating func record(_ outcome: WireOutcome, idTag: UInt32? = nil, origin: OutcomeOrigin? = nil) {
        guard capacity > 0 else {
            if let replaced = entries.remove(outcome.requestID) { forget(replaced) }
            return
        }
        let entry = Entry(outcome: outcome, idTag: idTag ?? RequestTable.tag(of: outcome.requestID), origin: origin)
        // One probe: the entry goes in, and whatever it replaces comes out.
        if let replaced = entries.replace(entry) { forget(replaced) }
        nextSerial += 1
        entry.recentSerial = nextSerial
        order.append((entry, nextSerial))
        bytes += entry.size
        // Owed outcomes count against the byte budget too: together they stay within it.
        while entries.count > capacity || (bytes + owedBytes > byteCapacity && entries.count > 1), let oldest = order.popFirst() {
            // A stale place: the entry was replaced (its serial is 0).
            guard oldest.entry.recentSerial == oldest.serial else { continue }
            entries.remove(oldest.entry)
            forget(oldest.entry)
        }
    }

    /// Takes a kept entry's share out of the totals (its place in `order` is skipped when
    /// eviction reaches it).
    private mutating func forget(_ entry: Entry) {
        bytes -= entry.size
        entry.recentSerial = 0
    }

    /// Roughly what an outcome costs to keep: its variable-length fields.
    static func size(of outcome: WireOutcome) -> Int {
        outcome.byteCount + 64
    }
}
