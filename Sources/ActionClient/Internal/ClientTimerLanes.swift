import DequeModule
import HeapModule

/// The client's timers, earliest first, at O(1) per call.
///
/// Timers of one kind for calls with the same timeout fall due in the order the calls were made,
/// so each such lane is a FIFO queue: adding a timer is an append, finding the next due one
/// looks at the front of each lane. A heap (O(log n), with a retain and release per level) was
/// an eighth of a busy client's CPU. Callers rarely use more than a few timeouts; past
/// ``maxLanes`` of them, the rest share one heap, so no pattern of timeouts makes a look at the
/// fronts cost more than that.
struct ClientTimerLanes {
    private struct LaneKey: Hashable {
        let timeout: Duration
        let kind: ClientTimer.Kind
    }

    static let maxLanes = 16

    private var lanes: [LaneKey: Deque<ClientTimer>] = [:]
    private var overflow = Heap<ClientTimer>()
    private(set) var count = 0

    /// Adds `timer`. Calls made on several threads reach the loop a little out of order, so a
    /// timer goes behind the last one due no later than it (a step or two from the back).
    mutating func insert(_ timer: ClientTimer) {
        count += 1
        let key = LaneKey(timeout: timer.call.timeout, kind: timer.kind)
        guard lanes[key] != nil || lanes.count < Self.maxLanes else {
            overflow.insert(timer)
            return
        }
        lanes[key, default: []].insertInOrder(timer)
    }

    /// Removes and returns the earliest timer due at `now`, or `nil` when none is.
    mutating func popDue(now: ContinuousClock.Instant) -> ClientTimer? {
        var earliest: (key: LaneKey, at: ContinuousClock.Instant)?
        for (key, lane) in lanes {
            guard let first = lane.first, first.at <= now else { continue }
            if earliest.map({ first.at < $0.at }) ?? true { earliest = (key, first.at) }
        }
        if let fromHeap = overflow.min, fromHeap.at <= now, earliest.map({ fromHeap.at < $0.at }) ?? true {
            count -= 1
            return overflow.removeMin()
        }
        guard let earliest else { return nil }
        count -= 1
        let timer = lanes[earliest.key]!.removeFirst()
        if lanes[earliest.key]!.isEmpty { lanes[earliest.key] = nil }
        return timer
    }

    /// Drops the timers `isVoid` picks, keeping the order of the rest.
    mutating func removeAll(where isVoid: (ClientTimer) -> Bool) {
        for key in Array(lanes.keys) {
            lanes[key]!.removeAll(where: isVoid)
            if lanes[key]!.isEmpty { lanes[key] = nil }
        }
        overflow = Heap(overflow.unordered.filter { !isVoid($0) })
        count = lanes.values.reduce(overflow.count) { $0 + $1.count }
    }
}

extension Deque<ClientTimer> {
    /// Appends `timer` behind the last timer due no later than it.
    fileprivate mutating func insertInOrder(_ timer: ClientTimer) {
        var index = endIndex
        while index > startIndex, self[index - 1].at > timer.at { index -= 1 }
        if index == endIndex { append(timer) } else { insert(timer, at: index) }
    }
}
