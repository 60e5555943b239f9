import ActionWire

/// What the coordinator remembers of finished requests, and how it numbers them on the stream.
///
/// An outcome is *owed* while its client may still be waiting for it: it stays in its request's
/// own place in the request table until the client acknowledges it (ACK) or stops waiting (its
/// deadline and ``CoordinatorConfiguration/owedOutcomeGrace``). Then, or at once when the owed
/// ones fill their byte budget, it is *recent*: kept in ``CompletedOutcomes`` under its id to
/// answer a resend, and evicted oldest first past the configured bounds. Published outcomes are
/// numbered per scope by an ``OutcomeSequencer``, so a subscriber can tell when it missed one.
///
/// It is not thread-safe: the coordinator's core owns it.
final class OutcomeKeeper {
    @exclusivity(unchecked) private(set) var completed: CompletedOutcomes
    /// When each owed outcome's client stops waiting: it becomes recent then, and may be evicted.
    @exclusivity(unchecked) private var owedDeadlines: DeadlineWheel
    @exclusivity(unchecked) private var sequencer = OutcomeSequencer()
    /// ``CoordinatorConfiguration/owedOutcomeGrace`` in nanoseconds, added to a deadline's
    /// ``ClockOffset`` for every outcome kept.
    private let owedOutcomeGraceNanoseconds: Int64

    init(capacity: Int, byteCapacity: Int, owedOutcomeGrace: Duration, origin: ContinuousClock.Instant) {
        completed = CompletedOutcomes(capacity: capacity, byteCapacity: byteCapacity)
        owedDeadlines = DeadlineWheel(origin: origin)
        owedOutcomeGraceNanoseconds = owedOutcomeGrace.wholeNanoseconds
    }

    /// Outcomes owed to clients that have not acknowledged them.
    var owedCount: Int { completed.owedCount }

    /// Every outcome kept, owed or recent.
    var keptCount: Int { completed.count + completed.owedCount }

    /// The outcome kept for `requestID` and where its request came from: owed, held by `found`
    /// (the request table's entry for the id, if any), or else recent.
    func kept(_ requestID: String, idTag: UInt32, found: PendingRequest?) -> (outcome: WireOutcome, origin: OutcomeOrigin?)? {
        if let found, let owed = found.owedOutcome { return (owed, found.origin) }
        return completed.lookup(requestID, idTag: idTag)
    }

    /// Keeps the outcome of `pending`, just finished. Returns `true` when it is owed, and so
    /// stays in the request table; `false` when the request must leave the table: its outcome
    /// is only recent (the owed ones fill the byte budget), or not kept at all (a Majordomo
    /// request's: MDP has no request identity, so no one can ask for it again).
    func keep(_ outcome: WireOutcome, of pending: PendingRequest) -> Bool {
        guard pending.sender.map({ $0.address.protocol == .actionBus }) ?? true else { return false }
        let size = Self.owedSize(of: pending, outcome)
        guard completed.mayOwe(size) else {
            completed.record(outcome, idTag: pending.idTag, origin: pending.origin)
            return false
        }
        pending.owedOutcome = outcome
        completed.owe(size)
        owedDeadlines.insert(pending, atOffset: pending.deadlineOffset.addingSaturating(owedOutcomeGraceNanoseconds))
        return true
    }

    /// An owed outcome's request, just taken out of the request table, is done with: its client
    /// has the outcome (or stopped waiting). The outcome is kept as recent when `keep`.
    func settle(_ owed: PendingRequest, keep: Bool) {
        guard let outcome = owed.owedOutcome else { return }
        owedDeadlines.remove(owed)
        owed.owedOutcome = nil
        completed.settle(Self.owedSize(of: owed, outcome))
        if keep { completed.record(outcome, idTag: owed.idTag, origin: owed.origin) }
    }

    /// The requests whose owed outcomes' clients stopped waiting by `now`; the caller takes
    /// each out of the request table and settles it.
    func dueOwed(now: ContinuousClock.Instant) -> [PendingRequest] {
        owedDeadlines.removeDue(now: now).filter { $0.owedOutcome != nil }
    }

    /// Keeps `outcome` as recent: one the journal gave back after a restart.
    func restore(_ outcome: WireOutcome) {
        completed.record(outcome)
    }

    /// The numbers and topics `outcome` is published with.
    func publication(for outcome: WireOutcome, position: UInt64) -> OutcomeSequencer.Publication {
        sequencer.next(for: outcome, position: position)
    }

    /// Forgets the stream counters of `sessions` (ended, or idle).
    func forget(sessions: Set<String>) {
        sequencer.forget(sessions: sessions)
    }

    /// What an owed outcome holds in memory, for the byte budget: the outcome and the request it
    /// stays in (its id, names and input), which is freed only at the ACK.
    static func owedSize(of pending: PendingRequest, _ outcome: WireOutcome) -> Int {
        CompletedOutcomes.size(of: outcome) + pending.packedCount
    }
}
