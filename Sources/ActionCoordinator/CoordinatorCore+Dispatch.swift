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
        enqueue(pending, lane: pending.lane, atHead: atHead)
    }

    /// ``enqueue(_:atHead:)`` into `lane`, which must be the request's own.
    func enqueue(_ pending: PendingRequest, lane: Lane, atHead: Bool) {
        assert(lane == pending.lane, "a request waits in its own lane")
        queuedCount += 1
        if let last = lastLane, last.lane == lane {
            add(pending, to: last.queue, atHead: atHead)
        } else if let queue = lanes[lane] {
            add(pending, to: queue, atHead: atHead)
            lastLane = (lane, queue)
        } else {
            let queue = spareLaneQueues.popLast() ?? LaneQueue()
            queue.requests.append(pending)
            lanes[lane] = queue
            lastLane = (lane, queue)
            if atHead { waiting.prepend(lane) } else { waiting.append(lane) }
        }
    }

    func add(_ pending: PendingRequest, to queue: LaneQueue, atHead: Bool) {
        if atHead { queue.requests.prepend(pending) } else { queue.requests.append(pending) }
        // Past a small size its storage is not worth keeping as a spare.
        if queue.requests.count == 64 { queue.isLarge = true }
    }

    /// A queued request leaves the queue without dispatch; its lane entry goes stale.
    func leaveQueue() {
        queuedCount -= 1
        staleEntries += 1
        // Dispatch drops stale entries as it meets them; with no worker to dispatch to they
        // could pile up, so past a bound they are swept at once (amortised O(1) per request).
        if staleEntries > 10_000 && staleEntries > queuedCount { dropStaleEntries() }
    }

    func dropStaleEntries() {
        lastLane = nil
        for (lane, queue) in lanes {
            queue.requests.removeAll { $0.isFinished || $0.placement != .queued }
            if queue.requests.isEmpty { lanes[lane] = nil }
        }
        waiting.removeAll { lanes[$0] == nil }
        for host in Array(parked.keys) {
            parked[host]!.removeAll { lanes[$0] == nil }
            if parked[host]!.isEmpty { parked[host] = nil }
        }
        staleEntries = 0
    }

    // MARK: Dispatch

    /// Sends queued requests to workers with free credits, lane by lane in the order the lanes
    /// filled, each lane's requests in order (so a session's requests leave in submission order).
    func dispatch(now: ContinuousClock.Instant) {
        unparkLanes()
        guard freeCredits > 0, !waiting.isEmpty else { return }
        let nowOffset = ClockOffset.of(now)
        // Lanes that could not go and are not parked go back in front of those not reached.
        var blocked: Deque<Lane> = []
        while freeCredits > 0, let lane = waiting.popFirst() {
            switch dispatchLane(lane, now: now, nowOffset: nowOffset) {
            case .emptied:
                // Only a small one is kept: a spare must not hold on to a big burst's storage.
                if lastLane?.lane == lane { lastLane = nil }
                if let queue = lanes.removeValue(forKey: lane), !queue.isLarge, spareLaneQueues.count < 64 {
                    spareLaneQueues.append(queue)
                }
            case .blocked(let host?):
                parked[host, default: []].append(lane)
            case .blocked(nil):
                blocked.append(lane)
            }
        }
        waiting.prepend(contentsOf: blocked)
    }

    /// Lanes parked on a host that has room again, or is gone, go back to the front of the
    /// queue (they are older than what came since), in the order they were parked.
    func unparkLanes() {
        guard !parked.isEmpty else { return }
        for host in Array(parked.keys) where workers[host].map({ $0.freeCredits > 0 }) ?? true {
            waiting.prepend(contentsOf: parked.removeValue(forKey: host)!)
        }
    }

    /// How a lane's turn ended: it has nothing left, or it waits (for its session's host, when
    /// that is what it waits for).
    enum LaneProgress { case emptied, blocked(host: WorkerID?) }

    func dispatchLane(_ lane: Lane, now: ContinuousClock.Instant, nowOffset: Int64) -> LaneProgress {
        guard let queue = lanes[lane] else { return .emptied }
        while let pending = queue.requests.first {
            guard !pending.isFinished, pending.placement == .queued else {
                queue.requests.removeFirst()
                staleEntries = max(0, staleEntries - 1)
                continue
            }
            // Past its deadline, it waits for the tick that answers it `timedOut`: sent now, it
            // would reach its worker with no time left, and the coordinator would count its
            // credit free again (deadline and grace gone) before the worker's answer came.
            guard pending.deadlineOffset > nowOffset else { return .blocked(host: nil) }
            let worker: WorkerRecord
            switch chooseWorker(for: pending, now: now) {
            case .worker(let chosen): worker = chosen
            case .waitForHost(let host): return .blocked(host: host)
            case .waitForAny: return .blocked(host: nil)
            }
            queue.requests.removeFirst()
            queuedCount -= 1
            // A send that failed put the request back at the head of its lane and took the
            // worker out of the pool: the next turn of the loop chooses again.
            send(pending, to: worker, now: now, nowOffset: nowOffset)
        }
        return .emptied
    }

    /// Where a queued request can go now, or what it waits for.
    enum WorkerChoice {
        case worker(WorkerRecord)
        /// Its session's host: for a credit there, or for what the session still runs there.
        case waitForHost(WorkerID)
        /// Any worker serving its action with a free credit.
        case waitForAny
    }

    /// Whether `host` still runs a request of `session`.
    func runs(_ session: String, on host: WorkerRecord) -> Bool {
        host.inFlight.contains { !$0.isFinished && $0.hasSession && $0.session == session }
    }

    func chooseWorker(for pending: PendingRequest, now: ContinuousClock.Instant) -> WorkerChoice {
        let action = pending.action
        let session = pending.hasSession ? pending.session : ""
        if !session.isEmpty, let host = sessions[session]?.worker, let worker = workers[host] {
            if worker.actions.contains(action) {
                return worker.freeCredits > 0 && !worker.inFlight.containsID(of: pending) ? .worker(worker) : .waitForHost(host)
            }
            // The host does not serve this action: the session moves, but only once what it
            // runs there has finished, so its requests still complete in order.
            if runs(session, on: worker) { return .waitForHost(host) }
        }
        var best = leastLoadedWorker(for: action, excluding: nil)
        // Not to a worker still holding an abandoned run of the same id: one credit, one id.
        // Rare, so checked on the choice rather than on every candidate.
        if let chosen = best, chosen.inFlight.containsID(of: pending) {
            best = leastLoadedWorker(for: action, excluding: pending)
        }
        guard let chosenWorker = best else { return .waitForAny }
        let chosen = chosenWorker.id
        if !session.isEmpty {
            if let previous = sessions[session]?.worker, previous != chosen {
                workers[previous]?.sessions.remove(session)
            }
            sessions[session] = SessionPin(worker: chosen, lastUsed: now)
            chosenWorker.sessions.insert(session)
        }
        return .worker(chosenWorker)
    }

    /// The worker serving `action` with a free credit and the fewest requests in flight (on a
    /// tie, the most room), leaving out those still holding a run of the id of `excluded`.
    func leastLoadedWorker(for action: String, excluding excluded: PendingRequest?) -> WorkerRecord? {
        var best: WorkerRecord?
        for worker in workersServing(action) where worker.freeCredits > 0 {
            if let excluded, worker.inFlight.containsID(of: excluded) { continue }
            if let current = best {
                // Least loaded first; on a tie, the one with more room.
                if worker.inFlight.count < current.inFlight.count
                    || (worker.inFlight.count == current.inFlight.count && worker.freeCredits > current.freeCredits) {
                    best = worker
                }
            } else {
                best = worker
            }
        }
        return best
    }

    /// Sends a queued request to `worker`; when the worker cannot be reached, the request goes
    /// back to the head of its lane, uncounted, and the worker is taken out of the pool.
    /// `nowOffset` is `now` as a ``ClockOffset``.
    func send(_ pending: PendingRequest, to worker: WorkerRecord, now: ContinuousClock.Instant, nowOffset: Int64) {
        pending.placement = .running(on: worker.id)
        pending.deliveries += 1
        if pending.hasSession { sessions[pending.session]?.lastUsed = now }
        worker.inFlight.insert(pending)
        freeCredits -= 1
        let timeout = WireRequest.timeoutMilliseconds(nanoseconds: pending.deadlineOffset.subtractingSaturating(nowOffset))
        guard !outbox.send(OutgoingRequest(pending, timeoutMilliseconds: timeout), to: worker.id) else { return }
        worker.inFlight.remove(pending)
        freeCredits += 1
        pending.placement = .queued
        pending.deliveries -= 1
        enqueue(pending, atHead: true)
        markUnreachable(worker.id)
    }

    /// Requests the driver could not send to `worker` (their message found the connection gone):
    /// back to the heads of their lanes, in order and uncounted, and the worker leaves the pool
    /// until it is heard from again.
    package func undelivered(_ requestIDs: [String], to worker: WorkerID, now: ContinuousClock.Instant) {
        guard let record = workers[worker] else { return }
        var returned = false
        for requestID in requestIDs.reversed() {
            // The worker never had it: its credit comes back whatever became of the request
            // meanwhile (a cancellation or a deadline may have finished it).
            guard let pending = record.inFlight.remove(requestID) else { continue }
            returned = true
            // The pool counts this worker's free credits only while it is reachable and not draining.
            if !record.isUnreachable, !record.isDraining { freeCredits += 1 }
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
