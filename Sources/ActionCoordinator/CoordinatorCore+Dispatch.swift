import ActionCore
import ActionJournal
import ActionWire
import DequeModule
import Foundation
import Logging

/// Lanes and dispatch: queued requests to workers with free credits, sessions in order.
extension CoordinatorCore {
    /// Puts a queued request in its lane: at the back, or at the head for a redelivery.
    func enqueue(_ pending: PendingRequest, atHead: Bool) {
        scheduler.enqueue(pending, lane: pending.lane, atHead: atHead)
    }

    /// Sends queued requests to workers with free credits, lane by lane in the order the lanes
    /// filled, each lane's requests in order (so a session's requests leave in submission order).
    func dispatch(now: ContinuousClock.Instant) {
        let registry = registry
        scheduler.unparkLanes { host in registry[host].map { $0.freeCredits > 0 } ?? true }
        guard registry.freeCredits > 0 else { return }
        let nowOffset = ClockOffset.of(now)
        scheduler.dispatch(nowOffset: nowOffset, to: DispatchRound(core: self, now: now, nowOffset: nowOffset))
    }

    /// One dispatch's view of the core: its credit, its choice of worker and its send, at one instant.
    struct DispatchRound: LaneDispatchTarget {
        unowned(unsafe) let core: CoordinatorCore
        let now: ContinuousClock.Instant
        let nowOffset: Int64

        var hasCredit: Bool { core.registry.freeCredits > 0 }

        func choose(for pending: PendingRequest) -> DispatchChoice { core.chooseWorker(for: pending, now: now) }

        func send(_ pending: PendingRequest, to worker: WorkerRecord) {
            core.send(pending, to: worker, now: now, nowOffset: nowOffset)
        }
    }

    func chooseWorker(for pending: PendingRequest, now: ContinuousClock.Instant) -> DispatchChoice {
        // Its lane waits (behind it, so a session keeps its order) for its worker's READY.
        if waitsForAdoption(pending, now: now) { return .waitForAny }
        let action = pending.action
        let session = pending.hasSession ? pending.session : ""
        if !session.isEmpty, let host = registry.sessions[session]?.worker, let worker = registry[host] {
            if worker.actions.contains(action) {
                return worker.freeCredits > 0 && !worker.inFlight.containsID(of: pending) ? .worker(worker) : .waitForHost(host)
            }
            // The host does not serve this action: the session moves, but only once what it
            // runs there has finished, so its requests still complete in order.
            if registry.runs(session, on: worker) { return .waitForHost(host) }
        }
        var best = registry.leastLoadedWorker(for: action, excluding: nil)
        // Not to a worker still holding an abandoned run of the same id: one credit, one id.
        // Rare, so checked on the choice rather than on every candidate.
        if let chosen = best, chosen.inFlight.containsID(of: pending) {
            best = registry.leastLoadedWorker(for: action, excluding: pending)
        }
        guard let chosen = best else { return .waitForAny }
        if !session.isEmpty { registry.pin(session, to: chosen, now: now) }
        return .worker(chosen)
    }

    /// Sends a queued request to `worker`; when the worker cannot be reached, the request goes
    /// back to the head of its lane, uncounted, and the worker is taken out of the pool.
    /// `nowOffset` is `now` as a ``ClockOffset``.
    func send(_ pending: PendingRequest, to worker: WorkerRecord, now: ContinuousClock.Instant, nowOffset: Int64) {
        pending.placement = .running(on: worker.id)
        pending.deliveries += 1
        if pending.hasSession { registry.sessions[pending.session]?.lastUsed = now }
        registry.take(pending, on: worker)
        let timeout = WireRequest.timeoutMilliseconds(nanoseconds: pending.deadlineOffset.subtractingSaturating(nowOffset))
        guard !outbox.send(OutgoingRequest(pending, timeoutMilliseconds: timeout), to: worker.id) else { return }
        registry.release(pending, from: worker)
        pending.placement = .queued
        pending.deliveries -= 1
        enqueue(pending, atHead: true)
        markUnreachable(worker.id)
    }

    /// Requests the driver could not send to `worker` (their message found the connection gone):
    /// back to the heads of their lanes, in order and uncounted, and the worker leaves the pool
    /// until it is heard from again.
    package func undelivered(_ requestIDs: [String], to worker: WorkerID, now: ContinuousClock.Instant) {
        guard let record = registry[worker] else { return }
        var returned = false
        for requestID in requestIDs.reversed() {
            // The worker never had it: its credit comes back whatever became of the request
            // meanwhile (a cancellation or a deadline may have finished it).
            guard let pending = registry.release(requestID, from: record) else { continue }
            returned = true
            guard !pending.isFinished, pending.placement == .running(on: worker) else { continue }
            pending.placement = .queued
            pending.deliveries -= 1
            enqueue(pending, atHead: true)
        }
        guard returned else { return }
        markUnreachable(worker)
        dispatch(now: now)
    }
}
