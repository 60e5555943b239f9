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
    /// Outcome counters by action, then by result (`success` or the failure's code): each made
    /// once, on first use.
    private var outcomeCounters: [String: [String: Counter]] = [:]

    /// Records a finished request's outcome and, unless it came back from the journal (its
    /// acceptance time is not known), its time from acceptance.
    func finished(_ outcome: WireOutcome, acceptedAt: ContinuousClock.Instant?, now: ContinuousClock.Instant) {
        let result: String
        switch outcome.result {
        case .success: result = "success"
        case .failure(let code, _): result = code
        }
        if let counter = outcomeCounters[outcome.action]?[result] {
            counter.increment()
        } else {
            let counter = Counter(label: Name.outcomes, dimensions: [("action", outcome.action), ("result", result)])
            outcomeCounters[outcome.action, default: [:]][result] = counter
            counter.increment()
        }
        if let acceptedAt { requestDuration.recordInterval(since: acceptedAt, now: now) }
    }

    /// Records one journal commit (group commit of a batch), from the journal's thread.
    static func journalCommitted(in duration: Duration) {
        Metrics.Timer(label: Name.journalCommitDuration).record(duration: duration)
    }
}

extension Metrics.Timer {
    /// Records the time from `start` to `now`, never negative.
    func recordInterval(since start: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        record(duration: max(.zero, now - start))
    }
}
