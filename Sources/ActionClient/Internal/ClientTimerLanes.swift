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
    private struct LaneKey: Equatable {
        let timeout: Duration
        let kind: ClientTimer.Kind
    }

    /// A lane: its key and its timers, earliest first.
    private struct Lane {
        let key: LaneKey
        var timers: Deque<ClientTimer>
    }

    static let maxLanes = 16

    /// At most ``maxLanes``, found by a scan: a few lanes compare faster than a key hashes,
    /// and inserting a timer is the client's most frequent step after sending.
    private var lanes: [Lane] = []
    private var overflow = Heap<ClientTimer>()
    private(set) var count = 0

    /// Adds `timer`. Calls made on several threads reach the loop a little out of order, so a
    /// timer goes behind the last one due no later than it (a step or two from the back).
    mutating func insert(_ timer: ClientTimer) {
        count += 1
        let key = LaneKey(timeout: timer.call.timeout, kind: timer.kind)
        if let index = lanes.firstIndex(where: { $0.key == key }) {
            lanes[index].timers.insertInOrder(timer)
        } else if lanes.count < Self.maxLanes {
            lanes.append(Lane(key: key, timers: [timer]))
        } else {
            overflow.insert(timer)
        }
    }

    /// Removes and returns the earliest timer due at `now`, or `nil` when none is.
    mutating func popDue(now: ContinuousClock.Instant) -> ClientTimer? {
        var earliest: (index: Int, at: ContinuousClock.Instant)?
        for (index, lane) in lanes.enumerated() {
            guard let first = lane.timers.first, first.at <= now else { continue }
            if earliest.map({ first.at < $0.at }) ?? true { earliest = (index, first.at) }
        }
        if let fromHeap = overflow.min, fromHeap.at <= now, earliest.map({ fromHeap.at < $0.at }) ?? true {
            count -= 1
            return overflow.removeMin()
        }
        guard let earliest else { return nil }
        count -= 1
        let timer = lanes[earliest.index].timers.removeFirst()
        if lanes[earliest.index].timers.isEmpty { lanes.remove(at: earliest.index) }
        return timer
    }

    /// Drops the timers `isVoid` picks, keeping the order of the rest.
    mutating func removeAll(where isVoid: (ClientTimer) -> Bool) {
        for index in lanes.indices {
            // Kept timers copied into a fresh lane in one pass: removing from the middle of a
            // deque in place moves what follows each removal.
            var kept = Deque<ClientTimer>(minimumCapacity: lanes[index].timers.count)
            for timer in lanes[index].timers where !isVoid(timer) { kept.append(timer) }
            lanes[index].timers = kept
        }
        lanes.removeAll { $0.timers.isEmpty }
        overflow = Heap(overflow.unordered.filter { !isVoid($0) })
        count = lanes.reduce(overflow.count) { $0 + $1.timers.count }
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
