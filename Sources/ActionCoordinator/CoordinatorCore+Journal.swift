import ActionCore
import ActionJournal
import ActionWire
import DequeModule
import Foundation
import Logging

/// What the journal gives back after a restart, and what a compaction writes.
extension CoordinatorCore {
    /// Takes back what the journal held: finished outcomes answer retries and rebuild the action
    /// stacks; unfinished requests are queued again, in acceptance order, with their deadlines.
    ///
    /// Call it once, before any message arrives.
    package func restore(_ recovery: JournalRecovery, now: ContinuousClock.Instant, wallNow: Date? = nil) {
        let wallNow = wallNow ?? wallClock()
        for outcome in recovery.finished {
            outcomes.restore(outcome)
            recordStack(outcome, now: now)
        }
        history.restore(recovery.published, head: recovery.streamHead, now: UInt64(max(0, Self.milliseconds(since1970: wallNow))))
        for recovered in recovery.unfinished where requests[recovered.request.requestID] == nil {
            let request = recovered.request
            nextOrder += 1
            let pending = PendingRequest.make(
                request, sender: nil, order: nextOrder,
                deadline: now + .milliseconds(Int64((recovered.deadline.timeIntervalSince(wallNow) * 1000).rounded(.up)))
            )
            pending.recovered = true
            pending.deliveries = recovered.workerDeaths
            requests.insert(pending)
            deadlines.insert(pending)
            enqueue(pending, atHead: false)
        }
        counters.recovered += recovery.unfinished.count
        // Some may be running on workers of the coordinator before: they say so as they
        // register (heartbeat × liveness is how long they take to notice it is gone).
        journaledWorkers = Set(recovery.workers ?? [])
        if !recovery.unfinished.isEmpty, configuration.adoptionHold > .zero, recovery.workers?.isEmpty != true {
            adoptionHoldUntil = now + configuration.adoptionHold
            adoptionHoldStartedAt = now
            awaitedWorkers = journaledWorkers
        }
        featureSwitches = recovery.featureSwitches
        knownActions.restore(recovery.knownActions, restartedAt: wallNow)
    }

    /// What a compacted journal must hold: the finished outcomes still kept for retries, then the
    /// unfinished requests in acceptance order, each with the worker deaths it has seen, then
    /// the stream's kept history and its head.
    package func journalSnapshot(now: ContinuousClock.Instant, wallNow: Date? = nil) -> [JournalRecord] {
        let wallNow = wallNow ?? wallClock()
        var records: [JournalRecord] = []
        forEachSnapshotRecord(now: now, wallNow: wallNow) { record in
            records.append(record)
        } accepted: { pending, deadline in
            records.append(.accepted(pending.request, deadline: deadline))
        }
        return records
    }

    /// The same snapshot, written as the journal's records: each unfinished request straight
    /// from the bytes it is held as, so a compaction with a million queued makes no
    /// `WireRequest` for any of them.
    package func encodedJournalSnapshot(now: ContinuousClock.Instant, wallNow: Date? = nil) -> JournalSnapshot {
        let wallNow = wallNow ?? wallClock()
        var snapshot = JournalSnapshot()
        forEachSnapshotRecord(now: now, wallNow: wallNow) { record in
            snapshot.append(record)
        } accepted: { pending, deadline in
            snapshot.append(pending.acceptance(deadline: deadline))
        }
        return snapshot
    }

    func forEachSnapshotRecord(
        now: ContinuousClock.Instant, wallNow: Date,
        _ record: (JournalRecord) -> Void, accepted: (PendingRequest, Date) -> Void
    ) {
        if !featureSwitches.isEmpty { record(.featureSwitches(featureSwitches)) }
        if !knownActions.actions.isEmpty { record(.knownActions(knownActions.actions)) }
        if !journaledWorkers.isEmpty { record(.workers(journaledWorkers.sorted())) }
        // Recent outcomes oldest first, then the owed ones: a restart takes them back in this
        // order as recent ones, so its bounds evict recent outcomes before any that a client
        // may still be waiting for.
        for outcome in outcomes.completed.oldestFirst { record(.finished(outcome)) }
        var unfinished: [PendingRequest] = []
        for pending in requests.requests {
            if let outcome = pending.owedOutcome { record(.finished(outcome)) } else { unfinished.append(pending) }
        }
        for pending in unfinished.sorted(by: { $0.order < $1.order }) {
            accepted(pending, wallNow.addingTimeInterval((pending.deadline - now).timeInterval))
            // A running request's current delivery is not a death.
            let deaths = pending.placement == .queued ? pending.deliveries : pending.deliveries - 1
            if deaths > 0 {
                let requestID = pending.requestID
                for _ in 0..<deaths { record(.workerDied(requestID: requestID)) }
            }
        }
        // The stream's history, then its head: positions go on from it after a restart, and a
        // record of a batch this compaction overtook (at a position up to the head) is read once.
        for kept in history.kept {
            record(.published(kept.outcome, position: kept.position, publishedAt: kept.publishedAt, finishesRequest: false))
        }
        record(.streamHead(history.head))
    }
}
