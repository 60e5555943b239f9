import HeapModule

/// Request deadlines in buckets of `granularity`, earliest bucket first: inserting and removing
/// a deadline is a set operation, and finding what is due never looks at what is not.
///
/// A deadline fires at most one granularity late, never early. Finished requests are removed
/// at once, so the wheel holds only what is live.
struct DeadlineWheel {
    let granularity: Duration
    private let origin: ContinuousClock.Instant
    private var buckets: [Int64: Set<String>] = [:]
    /// One entry per bucket; a bucket emptied by removals stays (empty) until it is due.
    private var bucketTimes = Heap<Int64>()
    private(set) var count = 0

    init(origin: ContinuousClock.Instant, granularity: Duration = .milliseconds(10)) {
        self.origin = origin
        self.granularity = granularity
    }

    private func bucket(of deadline: ContinuousClock.Instant) -> Int64 {
        Int64(((deadline - origin) / granularity).rounded(.up))
    }

    mutating func insert(_ requestID: String, at deadline: ContinuousClock.Instant) {
        let key = bucket(of: deadline)
        if buckets[key] == nil {
            buckets[key] = [requestID]
            bucketTimes.insert(key)
        } else if buckets[key]!.insert(requestID).inserted == false {
            return
        }
        count += 1
    }

    mutating func remove(_ requestID: String, at deadline: ContinuousClock.Instant) {
        let key = bucket(of: deadline)
        guard buckets[key]?.remove(requestID) != nil else { return }
        count -= 1
        if buckets[key]?.isEmpty == true { buckets[key] = [] }
    }

    /// Takes out every request whose deadline has passed.
    mutating func removeDue(now: ContinuousClock.Instant) -> [String] {
        let due = Int64(((now - origin) / granularity).rounded(.down))
        var expired: [String] = []
        while let earliest = bucketTimes.min, earliest <= due {
            bucketTimes.removeMin()
            if let requestIDs = buckets.removeValue(forKey: earliest) {
                expired.append(contentsOf: requestIDs)
                count -= requestIDs.count
            }
        }
        return expired
    }
}
