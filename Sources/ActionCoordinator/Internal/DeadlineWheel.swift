import ActionCore
import HeapModule

/// Request deadlines in buckets of `granularity`, earliest bucket first: inserting and removing
/// a deadline is an array operation on the request's own bucket (no hashing), and finding what
/// is due never looks at what is not.
///
/// A deadline fires at most one granularity late, never early. Finished requests are removed
/// at once, so the wheel holds only what is live. A request is in at most one bucket: it
/// remembers which, and where in it.
///
/// The wheel owns its buckets; a request points at its bucket without counting the reference
/// (retaining and releasing the bucket at each insert and remove was most of the wheel's cost),
/// which is sound because the wheel clears that pointer before it lets a bucket go.
struct DeadlineWheel {
    /// The requests due in one granularity. A class, so that a request can point at it and
    /// leave it without a dictionary lookup.
    final class Bucket {
        fileprivate let time: Int64
        @exclusivity(unchecked) fileprivate var requests: [PendingRequest] = []

        fileprivate init(time: Int64) { self.time = time }
    }

    let granularity: Duration
    /// Bucket times count granularities from here, a ``ClockOffset``.
    private let origin: Int64
    private var buckets: [Int64: Bucket] = [:]
    /// The bucket inserted into last: a batch's requests, accepted in the same instant with the
    /// same timeout, mostly share one, found without hashing.
    private var lastBucket: Bucket?
    /// One entry per bucket; a bucket emptied by removals stays (empty) until it is due.
    private var bucketTimes = Heap<Int64>()

    /// The granularity in nanoseconds: bucket times are worked out in integers (dividing one
    /// `Duration` by another goes through 128-bit division and a `Double`, per request).
    private let granularityNanoseconds: Int64

    init(origin: ContinuousClock.Instant, granularity: Duration = .milliseconds(10)) {
        self.origin = ClockOffset.of(origin)
        self.granularity = granularity
        self.granularityNanoseconds = max(1, granularity.wholeNanoseconds)
    }

    private func bucketTime(of deadline: Int64) -> Int64 {
        // Saturating: a deadline of `.max` (never) must not wrap round into the past when the
        // origin is before the epoch.
        let elapsed = deadline.subtractingSaturating(origin)
        let (quotient, remainder) = elapsed.quotientAndRemainder(dividingBy: granularityNanoseconds)
        return remainder > 0 ? quotient + 1 : quotient
    }

    /// Puts `request` in the bucket of `deadline`, taking it out of any bucket it was in.
    mutating func insert(_ request: PendingRequest, at deadline: ContinuousClock.Instant) {
        insert(request, atOffset: ClockOffset.of(deadline))
    }

    /// Puts `request` in the bucket of its own deadline.
    mutating func insert(_ request: PendingRequest) {
        insert(request, atOffset: request.deadlineOffset)
    }

    /// Puts `request` in the bucket of `deadline`, a ``ClockOffset``.
    mutating func insert(_ request: PendingRequest, atOffset deadline: Int64) {
        let time = bucketTime(of: deadline)
        if let current = request.wheelBucket {
            if current._withUnsafeGuaranteedRef({ $0.time }) == time { return }
            remove(request)
        }
        let bucket: Bucket
        if let lastBucket, lastBucket.time == time {
            bucket = lastBucket
        } else if let existing = buckets[time] {
            bucket = existing
        } else {
            bucket = Bucket(time: time)
            buckets[time] = bucket
            bucketTimes.insert(time)
        }
        lastBucket = bucket
        request.wheelBucket = Unmanaged.passUnretained(bucket)
        request.wheelIndex = Int32(bucket.requests.count)
        bucket.requests.append(request)
    }

    /// Takes `request` out of its bucket, if it is in one.
    mutating func remove(_ request: PendingRequest) {
        guard let unmanaged = request.wheelBucket else { return }
        request.wheelBucket = nil
        let index = Int(request.wheelIndex)
        unmanaged._withUnsafeGuaranteedRef { bucket in
            let lastIndex = bucket.requests.count - 1
            if index != lastIndex {
                // Swapped in the buffer, references moved: taking the last out and storing it
                // in the hole retained and released it.
                bucket.requests.withUnsafeMutableBufferPointer { requests in
                    requests.swapAt(index, lastIndex)
                    requests[index].wheelIndex = Int32(index)
                }
            }
            bucket.requests.removeLast()
            // An emptied bucket gives its storage back; the bucket itself goes when it is due.
            if bucket.requests.isEmpty { bucket.requests = [] }
        }
    }

    /// Takes out every request whose deadline has passed.
    mutating func removeDue(now: ContinuousClock.Instant) -> [PendingRequest] {
        let elapsed = ClockOffset.of(now) &- origin
        let (quotient, remainder) = elapsed.quotientAndRemainder(dividingBy: granularityNanoseconds)
        let due = remainder < 0 ? quotient - 1 : quotient
        var expired: [PendingRequest] = []
        while let earliest = bucketTimes.min, earliest <= due {
            bucketTimes.removeMin()
            if lastBucket?.time == earliest { lastBucket = nil }
            if let bucket = buckets.removeValue(forKey: earliest) {
                for request in bucket.requests { request.wheelBucket = nil }
                expired.append(contentsOf: bucket.requests)
            }
        }
        return expired
    }
}
