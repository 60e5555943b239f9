import ActionWire
import DequeModule

/// Finished outcomes by request id, to answer retries and duplicates.
///
/// An outcome its client has not acknowledged yet is *owed*: it is kept whatever the bounds,
/// until the client's ACK or until `owedUntil` (the client stopped waiting by then), so a
/// resend of a finished request always finds it and never runs the action again. After that,
/// outcomes are *recent*: kept for late duplicates and idempotency keys, oldest evicted first,
/// bounded both in number and in bytes (outputs can be up to the message limit each).
struct CompletedOutcomes {
    let capacity: Int
    let byteCapacity: Int
    /// Usually few: an acknowledgement follows each outcome within milliseconds.
    private var owed: [String: (outcome: WireOutcome, until: ContinuousClock.Instant, origin: OutcomeOrigin?)] = [:]
    private var outcomes: [String: WireOutcome] = [:]
    /// Where the kept outcomes' requests came from, where known (not for outcomes recovered from
    /// the journal): to tell a resend from a reuse of the id, and the owner from anyone else.
    private var origins: [String: OutcomeOrigin] = [:]
    private var order: Deque<String> = []
    private(set) var bytes = 0
    private var owedBytes = 0

    init(capacity: Int, byteCapacity: Int = .max) {
        self.capacity = max(0, capacity)
        self.byteCapacity = max(0, byteCapacity)
    }

    subscript(requestID: String) -> WireOutcome? { owed[requestID]?.outcome ?? outcomes[requestID] }

    /// Where the request `requestID` answered came from, when known.
    func origin(of requestID: String) -> OutcomeOrigin? { owed[requestID]?.origin ?? origins[requestID] }

    /// The outcomes kept: the recent ones oldest first, then the owed ones. A restart takes them
    /// back in this order as recent ones, so its bounds evict recent outcomes before any that a
    /// client may still be waiting for.
    var oldestFirst: [WireOutcome] { order.compactMap { outcomes[$0] } + owed.values.map(\.outcome) }

    var count: Int { owed.count + outcomes.count }

    /// Outcomes kept until their clients acknowledge them.
    var owedCount: Int { owed.count }

    /// Keeps `outcome`: owed until `owedUntil` when given (its client has yet to receive it),
    /// recent otherwise.
    mutating func record(_ outcome: WireOutcome, owedUntil: ContinuousClock.Instant? = nil, origin: OutcomeOrigin? = nil) {
        // Owed outcomes are bounded too, by the same byte budget: past it (clients that never
        // acknowledge, huge outputs) a new outcome is only recent.
        if let owedUntil, owedBytes + Self.size(of: outcome) <= byteCapacity {
            owed[outcome.requestID] = (outcome, owedUntil, origin)
            owedBytes += Self.size(of: outcome)
        } else {
            keepRecent(outcome, origin: origin)
        }
    }

    /// The client has the outcome: it becomes recent (and may be evicted), or is forgotten when
    /// not `keep` (no one can ask for it again).
    mutating func acknowledge(_ requestID: String, keep: Bool = true) {
        guard let entry = owed.removeValue(forKey: requestID) else { return }
        owedBytes -= Self.size(of: entry.outcome)
        if keep { keepRecent(entry.outcome, origin: entry.origin) }
    }

    /// Owed outcomes whose clients stopped waiting become recent (call it now and then: it
    /// looks at every owed outcome).
    mutating func expireOwed(now: ContinuousClock.Instant) {
        for (requestID, entry) in owed where entry.until <= now { acknowledge(requestID) }
    }

    private mutating func keepRecent(_ outcome: WireOutcome, origin: OutcomeOrigin?) {
        guard capacity > 0 else { return }
        origins[outcome.requestID] = origin
        if let replaced = outcomes.updateValue(outcome, forKey: outcome.requestID) {
            bytes -= Self.size(of: replaced)
        } else {
            order.append(outcome.requestID)
        }
        bytes += Self.size(of: outcome)
        // Owed outcomes count against the byte budget too: together they stay within it.
        while order.count > capacity || (bytes + owedBytes > byteCapacity && order.count > 1), let oldest = order.popFirst() {
            if let evicted = outcomes.removeValue(forKey: oldest) { bytes -= Self.size(of: evicted) }
            origins[oldest] = nil
        }
    }

    /// Roughly what an outcome costs to keep: its variable-length fields.
    static func size(of outcome: WireOutcome) -> Int {
        let result: Int
        switch outcome.result {
        case .success(let contentType, let output): result = contentType.utf8.count + output.count
        case .failure(let code, let message): result = code.utf8.count + message.utf8.count
        }
        return outcome.requestID.utf8.count + outcome.action.utf8.count + outcome.session.utf8.count
            + outcome.worker.utf8.count + result + 64
    }
}
