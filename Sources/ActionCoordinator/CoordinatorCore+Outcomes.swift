import ActionCore
import ActionJournal
import ActionWire
import DequeModule
import Foundation
import Logging

/// Outcomes: finishing a request, keeping its outcome, publishing it, its stacks.
extension CoordinatorCore {
    /// Answers `pending`, which must be unfinished (and so in the table): it stays there, owed,
    /// until its client acknowledges the outcome, or leaves it now.
    func finish(_ pending: PendingRequest, with outcome: WireOutcome, now: ContinuousClock.Instant) {
        assert(!pending.isFinished, "a request is answered once")
        complete(pending, with: outcome, now: now)
    }

    func complete(_ pending: PendingRequest, with outcome: WireOutcome, now: ContinuousClock.Instant) {
        // A worker's outcome says what its session is; one the coordinator decided, what the
        // request said.
        var outcome = outcome
        if outcome.worker.isEmpty && !pending.userInitiated { outcome.userInitiated = false }
        pending.isFinished = true
        if pending.placement == .queued { scheduler.leaveQueue() }
        deadlines.remove(pending)
        pending.sender?.share.unfinished -= 1
        // Read before the outcome is kept: an owed outcome takes the moved address's place.
        let client = pending.client
        // Owed, it stays in the table until its client acknowledges it.
        if !outcomes.keep(outcome, of: pending) { requests.remove(pending) }
        counters.completed += 1
        metrics?.finished(
            outcome, actionIsServed: registry.isServed(outcome.action), acceptedAt: pending.recovered ? nil : acceptedAt(of: pending), now: now
        )
        let position = record(outcome, finishesRequest: true, now: now)
        recordStack(outcome, now: now)
        publish(outcome, at: position)
        if let client {
            outbox.send(.outcome(outcome), to: client)
        }
    }

    /// An action a worker's action performed in its session (Flint's nested perform): it answers
    /// no request and holds no credit, so it only joins the stacks and the stream.
    func nestedPerform(_ outcome: WireOutcome, now: ContinuousClock.Instant) {
        counters.nestedPerforms += 1
        let position = record(outcome, finishesRequest: false, now: now)
        recordStack(outcome, now: now)
        publish(outcome, at: position)
    }

    /// Gives `outcome` its stream position, keeps it for replays, and journals it with its
    /// position (as the request's answer too when it `finishesRequest`). The position may be
    /// replayed once the batch's records are durable.
    private func record(_ outcome: WireOutcome, finishesRequest: Bool, now: ContinuousClock.Instant) -> UInt64 {
        let publishedAt = wallMilliseconds(at: now)
        let position = history.append(outcome, publishedAt: publishedAt)
        outbox.journal(.published(outcome, position: position, publishedAt: publishedAt, finishesRequest: finishesRequest))
        if !outbox.holdStreamPosition(position) { streamReleased(upTo: position) }
        return position
    }

    /// The batch that published positions up to `position` passed the commit gate.
    package func streamReleased(upTo position: UInt64) {
        guard !historyReleaseStopped else { return }
        history.release(upTo: position)
    }

    /// A batch was withheld: what it published must never be replayed by this coordinator.
    package func streamWithheld() {
        historyReleaseStopped = true
    }

    /// When `pending` was accepted: its deadline less the timeout it was given.
    func acceptedAt(of pending: PendingRequest) -> ContinuousClock.Instant {
        ClockOffset.instant(pending.deadlineOffset.subtractingSaturating(timeoutNanoseconds(asked: pending.timeoutMilliseconds)))
    }

    /// The timeout a request gets, in nanoseconds: what it asked for (0 asks for the default),
    /// at most the configured maximum. In integers: `Duration`'s arithmetic is 128-bit, and
    /// this is worked out for every request.
    func timeoutNanoseconds(asked milliseconds: UInt32) -> Int64 {
        let asked = milliseconds == 0 ? defaultTimeoutNanoseconds : Int64(milliseconds) * 1_000_000
        return min(asked, maxTimeoutNanoseconds)
    }

    /// Publishes `outcome` under both its topics, numbered, when anyone subscribes.
    func publish(_ outcome: WireOutcome, at position: UInt64) {
        guard outbox.hasSubscribers else { return }
        // Numbered only while someone listens: a subscriber checks gaps from the first number it
        // gets, so numbers nobody saw need not exist. The `all` number is the position.
        let publication = outcomes.publication(for: outcome, position: position)
        outbox.publish(.event(topic: publication.topics.byAction, sequences: publication.sequences, outcome: outcome))
        outbox.publish(.event(topic: publication.topics.bySession, sequences: publication.sequences, outcome: outcome))
    }

    func recordStack(_ outcome: WireOutcome, now: ContinuousClock.Instant) {
        guard !outcome.session.isEmpty else { return }
        sessionActivity[outcome.session] = now
        let summary: ActionOutcomeSummary = if let code = outcome.failureCode {
            .failure(ActionError.Code(code), closeActionStack: outcome.closeActionStack)
        } else {
            .success(closeActionStack: outcome.closeActionStack)
        }
        stacks.record(ActionStackRecord(
            sessionName: outcome.session, featureName: String(outcome.feature),
            actionName: outcome.action, outcome: summary, userInitiated: outcome.userInitiated
        ))
    }

    /// Whether anyone subscribes to began events now (the driver follows the stream's
    /// subscriptions): every worker is told to report them, or to stop.
    package func beganEvents(wanted: Bool) {
        guard wanted != beganWanted else { return }
        beganWanted = wanted
        for id in registry.workers.keys { _ = outbox.send(.reporting(began: wanted), to: id) }
        logger.info(wanted ? "began events wanted: workers report them" : "began events no longer wanted")
    }

    /// Confirms a new subscription on the stream, so the subscriber knows it misses nothing after.
    package func subscribed(topic: [UInt8]) {
        outbox.publish(.subscribed(topic: topic, instance: instance))
    }
}
