import ActionWire
import DequeModule

/// Runs this coordinator never sent out: requests that workers ran, or still run, for the
/// coordinator before it (a group's former leader), which never made their acceptance durable,
/// so this one has no record of them. Their clients were never told they were accepted, and
/// send them again; such a resend is answered by the run a worker already made (its result,
/// sent again as RESENT) or adopted where it runs (its worker's READY lists it), instead of a
/// second run.
///
/// Kept by request id for ``keptFor``, at most ``maxKept`` of them (the oldest go first).
final class OrphanRuns {
    enum Run: Equatable {
        /// A worker finished it: its outcome.
        case finished(WireOutcome)
        /// A worker runs it now.
        case running(WorkerID)
    }

    static let keptFor: Duration = .seconds(60)
    static let maxKept = 65_536

    @exclusivity(unchecked) private var runs: [String: (run: Run, at: ContinuousClock.Instant)] = [:]
    /// Request ids in the order they were kept, for forgetting the oldest.
    @exclusivity(unchecked) private var arrivals: Deque<(requestID: String, at: ContinuousClock.Instant)> = []

    var isEmpty: Bool { runs.isEmpty }

    /// Keeps `run` of `requestID` (a finished run replaces a running one), and forgets what is
    /// past ``keptFor`` or over ``maxKept``.
    func keep(_ run: Run, of requestID: String, now: ContinuousClock.Instant) {
        runs[requestID] = (run, now)
        arrivals.append((requestID, now))
        while let oldest = arrivals.first, arrivals.count > Self.maxKept || now - oldest.at > Self.keptFor {
            arrivals.removeFirst()
            // Kept again since (or taken): that later one stays.
            if runs[oldest.requestID]?.at == oldest.at { runs[oldest.requestID] = nil }
        }
    }

    /// The run of `requestID`, taken out; `nil` when none is kept.
    func take(_ requestID: String) -> Run? {
        runs.removeValue(forKey: requestID)?.run
    }
}
