import DequeModule

/// The queue: accepted requests waiting in lanes for a worker, and the order lanes take turns.
///
/// Each request waits in its ``Lane``: its session's (its requests leave in submission order,
/// to the worker hosting it) or, without a session, its action's. ``waiting`` lists the lanes
/// that hold requests, each once, in the order they filled; dispatch walks lanes, not
/// requests, so an action nobody serves costs one step per pass whatever it holds, and a
/// session waiting for its busy host is *parked* on it and costs nothing until the host has
/// room. Which worker a request goes to is not decided here: ``dispatch(nowOffset:to:)`` asks
/// its ``LaneDispatchTarget``.
///
/// It is not thread-safe: the coordinator's core owns it.
final class LaneScheduler {
    @exclusivity(unchecked) private(set) var lanes: [Lane: LaneQueue] = [:]
    /// The lane enqueued into last, and its queue (while it is in ``lanes``): a message's
    /// requests mostly share one lane, found without hashing its name for each.
    @exclusivity(unchecked) private var lastLane: (lane: Lane, queue: LaneQueue)?
    /// Emptied lane queues kept for reuse: a lane that fills and empties with every request
    /// (one in flight per session, say) allocates nothing.
    @exclusivity(unchecked) private var spareLaneQueues: [LaneQueue] = []
    /// Lanes holding queued requests, in the order they filled: each lane is either here or
    /// parked on the worker hosting its session (while that worker has no room for it).
    @exclusivity(unchecked) private(set) var waiting: Deque<Lane> = []
    /// Session lanes that wait for their host, by host: dispatch does not step over them again
    /// until the host has a free credit (or is gone), so a thousand sessions waiting on a busy
    /// worker cost nothing while another worker takes work.
    @exclusivity(unchecked) private(set) var parked: [WorkerID: [Lane]] = [:]
    /// Requests queued (entries of requests that left without dispatch not counted).
    @exclusivity(unchecked) private(set) var queuedCount = 0
    /// Lane entries of requests that left the queue without dispatch (cancelled, expired,
    /// adopted); dropped when dispatch reaches them, or all at once when they pile up.
    @exclusivity(unchecked) private(set) var staleEntries = 0

    init() {}

    /// Whether `lane` holds entries (a session's requests may still wait there).
    func holds(_ lane: Lane) -> Bool { lanes[lane] != nil }

    // MARK: Queueing

    /// Puts a queued request in `lane`, which must be its own: at the back, or at the head for
    /// a redelivery.
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

    private func add(_ pending: PendingRequest, to queue: LaneQueue, atHead: Bool) {
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

    /// Lanes parked on a host that has room again (or is gone) go back to the front of the
    /// queue (they are older than what came since), in the order they were parked.
    func unparkLanes(hostHasRoom: (WorkerID) -> Bool) {
        guard !parked.isEmpty else { return }
        for host in Array(parked.keys) where hostHasRoom(host) {
            waiting.prepend(contentsOf: parked.removeValue(forKey: host)!)
        }
    }

    /// Hands queued requests to `target`, lane by lane in the order the lanes filled, each
    /// lane's requests in order (so a session's requests leave in submission order), while it
    /// has credit. It chooses where each can go; a request is taken off its lane before it is
    /// sent, and a send that fails puts it back at the head with ``enqueue(_:lane:atHead:)``.
    /// `nowOffset` is now as a ``ClockOffset``: a request past its deadline is not sent.
    ///
    /// Generic, not closures: specialised for the core's target, the choice and the send are
    /// direct calls the optimiser can inline, on every request's path.
    func dispatch<Target: LaneDispatchTarget>(nowOffset: Int64, to target: Target) {
        guard target.hasCredit, !waiting.isEmpty else { return }
        // Lanes that could not go and are not parked go back in front of those not reached.
        var blocked: Deque<Lane> = []
        while target.hasCredit, let lane = waiting.popFirst() {
            switch turn(of: lane, nowOffset: nowOffset, target: target) {
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

    /// How a lane's turn ended: it has nothing left, or it waits (for its session's host, when
    /// that is what it waits for).
    private enum LaneProgress { case emptied, blocked(host: WorkerID?) }

    private func turn<Target: LaneDispatchTarget>(of lane: Lane, nowOffset: Int64, target: Target) -> LaneProgress {
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
            switch target.choose(for: pending) {
            case .worker(let chosen): worker = chosen
            case .waitForHost(let host): return .blocked(host: host)
            case .waitForAny: return .blocked(host: nil)
            }
            queue.requests.removeFirst()
            queuedCount -= 1
            // A send that fails puts the request back at the head of this lane and takes the
            // worker out of the pool: the next turn of the loop chooses again.
            target.send(pending, to: worker)
        }
        return .emptied
    }
}
