/// The registered workers, the credits they offer, and which worker hosts each session.
///
/// It keeps one account: ``freeCredits``, the pool dispatch draws from, always equals the sum
/// of the free credits of the workers that take work (reachable, not draining). Every change of
/// a worker's state or in-flight set goes through a method here that moves the pool with it,
/// so the account cannot drift (the simulation checks it after every step).
///
/// It is not thread-safe: the coordinator's core owns it.
final class WorkerRegistry {
    /// Every registered worker, by id.
    @exclusivity(unchecked) private(set) var workers: [WorkerID: WorkerRecord] = [:] {
        didSet {
            servingWorkers = nil
            lastServed = nil
        }
    }
    /// The free credits of the workers that take work, summed: dispatch's pool.
    @exclusivity(unchecked) private(set) var freeCredits = 0
    /// Which worker hosts each session (its requests go there, in order), and when the session
    /// was last used.
    @exclusivity(unchecked) private(set) var sessions: [String: SessionPin] = [:]
    /// The workers serving each action, made from `workers` when first needed after it changed
    /// (a worker registered or left): routing a request hashes its action once, not once per
    /// worker. Whether each takes work now (draining, unreachable, credits) is asked on use.
    @exclusivity(unchecked) private var servingWorkers: [String: [WorkerRecord]]?
    /// The last action asked about and its workers: a request is routed after its acceptance
    /// asked the same, and a run of requests names one action, so most asks compare two small
    /// strings instead of hashing one.
    @exclusivity(unchecked) private var lastServed: (action: String, workers: [WorkerRecord])?

    init() {}

    subscript(id: WorkerID) -> WorkerRecord? { workers[id] }

    var count: Int { workers.count }

    /// The pool and the sum of the free credits of the workers that take work: always equal and
    /// never negative, or credits are being lost or made up.
    var creditAccount: (pool: Int, workers: Int) {
        (freeCredits, workers.values.reduce(0) { $0 + $1.freeCredits })
    }

    // MARK: Membership

    /// Registers `record`. The same worker registering again (it answered DISCONNECTs, it
    /// reconnected under its stable routing id, or its actions changed) is the same process:
    /// what it runs, the sessions it hosts, its draining and its catalog carry over. Returns
    /// the record it replaces, if any.
    @discardableResult
    func register(_ record: WorkerRecord) -> WorkerRecord? {
        let existing = workers[record.id]
        if let existing {
            freeCredits -= existing.freeCredits
            record.inFlight = existing.inFlight
            record.sessions = existing.sessions
            record.isDraining = existing.isDraining
            record.catalog = existing.catalog
        }
        workers[record.id] = record
        freeCredits += record.freeCredits
        return existing
    }

    /// Takes worker `id` out, with its credits and the sessions it hosted; returns it, for its
    /// requests to be requeued.
    func remove(_ id: WorkerID) -> WorkerRecord? {
        guard let worker = workers.removeValue(forKey: id) else { return nil }
        freeCredits -= worker.freeCredits
        for session in worker.sessions where sessions[session]?.worker == id {
            sessions[session] = nil
        }
        return worker
    }

    /// Worker `id` was heard from at `now`; `returning` when it was unreachable until now (its
    /// new connection took over the routing id), and its credits are back in the pool.
    func heardFrom(_ id: WorkerID, now: ContinuousClock.Instant) -> (record: WorkerRecord, returning: Bool)? {
        guard let worker = workers[id] else { return nil }
        worker.lastHeard = now
        let returning = worker.isUnreachable
        if returning {
            worker.isUnreachable = false
            freeCredits += worker.freeCredits
        }
        return (worker, returning)
    }

    /// A send to worker `id` failed: its credits leave the pool until it is heard from again.
    /// Returns it when it was reachable until now.
    func markUnreachable(_ id: WorkerID) -> WorkerRecord? {
        guard let worker = workers[id], !worker.isUnreachable else { return nil }
        freeCredits -= worker.freeCredits
        worker.isUnreachable = true
        return worker
    }

    /// `worker` is shutting down: its free credits leave the pool for good. Returns whether it
    /// was not draining already.
    func startDraining(_ worker: WorkerRecord) -> Bool {
        guard !worker.isDraining else { return false }
        freeCredits -= worker.freeCredits
        worker.isDraining = true
        return true
    }

    // MARK: Credits

    /// `pending` is sent to `worker`, which must have a free credit: one is taken.
    func take(_ pending: PendingRequest, on worker: WorkerRecord) {
        assert(worker.freeCredits > 0, "a request goes to a worker with room")
        worker.inFlight.insert(pending)
        freeCredits -= 1
    }

    /// `worker` no longer holds `requestID` (it answered, or never got it): its credit comes
    /// back to the pool, if the worker takes work and is not still over its credits (it
    /// registered again with fewer). Returns the request it held.
    func release(_ requestID: String, from worker: WorkerRecord) -> PendingRequest? {
        let before = worker.freeCredits
        guard let held = worker.inFlight.remove(requestID) else { return nil }
        freeCredits += worker.freeCredits - before
        return held
    }

    /// ``release(_:from:)`` for the request itself, without looking its id up by name.
    @discardableResult
    func release(_ pending: PendingRequest, from worker: WorkerRecord) -> Bool {
        let before = worker.freeCredits
        guard worker.inFlight.remove(pending) else { return false }
        freeCredits += worker.freeCredits - before
        return true
    }

    // MARK: Sessions

    /// Pins `session` to `worker` (moving it from the worker that hosted it before, if any).
    func pin(_ session: String, to worker: WorkerRecord, now: ContinuousClock.Instant) {
        if let previous = sessions[session]?.worker, previous != worker.id {
            workers[previous]?.sessions.remove(session)
        }
        sessions[session] = SessionPin(worker: worker.id, lastUsed: now)
        worker.sessions.insert(session)
    }

    /// Unpins `session`: its next request may go to any worker.
    func unpin(_ session: String) {
        guard let pin = sessions.removeValue(forKey: session) else { return }
        workers[pin.worker]?.sessions.remove(session)
    }

    /// Whether `host` still runs a request of `session`.
    func runs(_ session: String, on host: WorkerRecord) -> Bool {
        host.inFlight.contains { !$0.isFinished && $0.hasSession && $0.session == session }
    }

    // MARK: Routing

    /// Whether a worker that takes new work serves `action`.
    func isServed(_ action: String) -> Bool {
        workersServing(action).contains { $0.takesWork }
    }

    /// Every action a worker that takes new work serves.
    var servedActions: Set<String> {
        Set(workers.values.filter(\.takesWork).flatMap(\.actions))
    }

    /// The registered workers whose catalog has `action`, in `workers`' order.
    func workersServing(_ action: String) -> [WorkerRecord] {
        if let lastServed, lastServed.action == action { return lastServed.workers }
        let table: [String: [WorkerRecord]]
        if let servingWorkers {
            table = servingWorkers
        } else {
            var made: [String: [WorkerRecord]] = [:]
            for worker in workers.values {
                for served in worker.actions { made[served, default: []].append(worker) }
            }
            servingWorkers = made
            table = made
        }
        let serving = table[action] ?? []
        lastServed = (action, serving)
        return serving
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
}
