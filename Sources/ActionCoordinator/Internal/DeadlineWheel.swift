import HeapModule

/// Request deadlines in buckets of `granularity`, earliest bucket first: inserting and removing
/// a deadline is a set operation, and finding what is due never looks at what is not.
///
/// A deadline fires at most one granularity late, never early. Finished requests are removed
/// at once, so the wheel holds only what is live.
struct DeadlineWheel {
    /// A bucket's requests. A class: changing a set inside a dictionary goes through the
    /// dictionary's `modify` accessor, whose coroutine frames were heap-allocated (three
    /// allocations per removal); a reference is changed in place.
    private final class Bucket {
        var requestIDs: Set<String> = []
    }

    let granularity: Duration
    private let origin: ContinuousClock.Instant
    private var buckets: [Int64: Bucket] = [:]
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
        if let bucket = buckets[key] {
            guard bucket.requestIDs.insert(requestID).inserted else { return }
        } else {
            let bucket = Bucket()
            bucket.requestIDs.insert(requestID)
            buckets[key] = bucket
            bucketTimes.insert(key)
        }
        count += 1
    }

    mutating func remove(_ requestID: String, at deadline: ContinuousClock.Instant) {
        guard let bucket = buckets[bucket(of: deadline)], bucket.requestIDs.remove(requestID) != nil else { return }
        count -= 1
        // An emptied bucket gives its storage back; the bucket itself goes when it is due.
        if bucket.requestIDs.isEmpty { bucket.requestIDs = [] }
    }

    /// Takes out every request whose deadline has passed.
    mutating func removeDue(now: ContinuousClock.Instant) -> [String] {
        let due = Int64(((now - origin) / granularity).rounded(.down))
        var expired: [String] = []
        while let earliest = bucketTimes.min, earliest <= due {
            bucketTimes.removeMin()
            if let bucket = buckets.removeValue(forKey: earliest) {
                expired.append(contentsOf: bucket.requestIDs)
                count -= bucket.requestIDs.count
            }
        }
        return expired
    }
}
