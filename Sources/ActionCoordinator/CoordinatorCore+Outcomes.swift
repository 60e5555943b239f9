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
        if pending.placement == .queued { leaveQueue() }
        deadlines.remove(pending)
        pending.sender?.share.unfinished -= 1
        // Read before the outcome is kept: an owed outcome takes the moved address's place.
        let client = pending.client
        keep(outcome, of: pending)
        counters.completed += 1
        metrics?.finished(
            outcome, actionIsServed: isServed(outcome.action), acceptedAt: pending.recovered ? nil : acceptedAt(of: pending), now: now
        )
        outbox.journal(.finished(outcome))
        recordStack(outcome, now: now)
        publish(outcome)
        if let client {
            outbox.send(.outcome(outcome), to: client)
        }
    }

    /// Keeps the outcome of `pending`, just finished: owed until its client has it (ACK), in the
    /// request's own place in the table; only recent, in the kept outcomes, when the owed ones
    /// fill the byte budget. A Majordomo request's outcome is not kept at all: MDP has no
    /// request identity (each request gets a new id), so no one can ask for it again.
    func keep(_ outcome: WireOutcome, of pending: PendingRequest) {
        guard pending.sender.map({ $0.address.protocol == .actionBus }) ?? true else {
            requests.remove(pending)
            return
        }
        let size = Self.owedSize(of: pending, outcome)
        guard completed.mayOwe(size) else {
            requests.remove(pending)
            completed.record(outcome, idTag: pending.idTag, origin: pending.origin)
            return
        }
        pending.owedOutcome = outcome
        completed.owe(size)
        owedDeadlines.insert(pending, atOffset: pending.deadlineOffset.addingSaturating(owedOutcomeGraceNanoseconds))
    }

    /// What an owed outcome holds in memory, for the byte budget: the outcome and the request it
    /// stays in (its id, names and input), which is freed only at the ACK.
    static func owedSize(of pending: PendingRequest, _ outcome: WireOutcome) -> Int {
        CompletedOutcomes.size(of: outcome) + pending.packedCount
    }

    /// An action a worker's action performed in its session (Flint's nested perform): it answers
    /// no request and holds no credit, so it only joins the stacks and the stream.
    func nestedPerform(_ outcome: WireOutcome, now: ContinuousClock.Instant) {
        counters.nestedPerforms += 1
        recordStack(outcome, now: now)
        publish(outcome)
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
    func publish(_ outcome: WireOutcome) {
        guard outbox.hasSubscribers else { return }
        // Numbered only while someone listens: a subscriber checks gaps from the first number it
        // gets, so numbers nobody saw need not exist.
        let publication = sequencer.next(for: outcome)
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
        for id in workers.keys { _ = outbox.send(.reporting(began: wanted), to: id) }
        logger.info(wanted ? "began events wanted: workers report them" : "began events no longer wanted")
    }

    /// Confirms a new subscription on the stream, so the subscriber knows it misses nothing after.
    package func subscribed(topic: [UInt8]) {
        outbox.publish(.subscribed(topic: topic, instance: instance))
    }
}
