import ActionWire
import Metrics

/// What the coordinator records through swift-metrics as it works, when its configuration asks
/// for metrics (`recordsMetrics`): each outcome by action and result, and each request's time
/// from acceptance to outcome. Everything else the exporter reads from the counters at scrape
/// time, so a coordinator without metrics pays nothing for them.
///
/// Loop thread only; the handles themselves are thread-safe.
final class CoordinatorMetrics {
    /// The metric names, shared with the exporter.
    enum Name {
        static let outcomes = "actionbus_outcomes_total"
        static let requestDuration = "actionbus_request_duration_seconds"
        static let journalCommitDuration = "actionbus_journal_commit_duration_seconds"
    }

    private let requestDuration = Metrics.Timer(label: Name.requestDuration)
    private static let journalCommitDuration = Metrics.Timer(label: Name.journalCommitDuration)
    /// Outcome counters by action, then by result (`success` or the failure's code): each made
    /// on first use.
    private var outcomeCounters: [String: [String: Counter]] = [:]

    /// Labels are bounded: an action no registered worker serves (a client may name anything)
    /// counts as `other`, and so does any result past this many distinct ones for an action
    /// (error codes are an action's own).
    static let maxResultsPerAction = 32
    static let otherLabel = "other"

    /// Records a finished request's outcome and, unless it came back from the journal (its
    /// acceptance time is not known), its time from acceptance.
    func finished(_ outcome: WireOutcome, actionIsServed: Bool, acceptedAt: ContinuousClock.Instant?, now: ContinuousClock.Instant) {
        let action = actionIsServed ? outcome.action : Self.otherLabel
        var result = outcome.failureCode ?? "success"
        if let counter = outcomeCounters[action]?[result] {
            counter.increment()
        } else {
            if outcomeCounters[action, default: [:]].count >= Self.maxResultsPerAction { result = Self.otherLabel }
            let counter = outcomeCounters[action]?[result]
                ?? Counter(label: Name.outcomes, dimensions: [("action", action), ("result", result)])
            outcomeCounters[action, default: [:]][result] = counter
            counter.increment()
        }
        if let acceptedAt { requestDuration.recordInterval(since: acceptedAt, now: now) }
    }

    /// Records one journal commit (its write and sync, for a group of the loop's batches), from
    /// the journal's thread.
    static func journalCommitted(in duration: Duration) {
        journalCommitDuration.record(duration: duration)
    }
}

extension Metrics.Timer {
    /// Records the time from `start` to `now`, never negative.
    func recordInterval(since start: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        record(duration: max(.zero, now - start))
    }
}
