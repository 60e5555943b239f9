@testable import ActionCoordinator
import ActionWire
import Testing

/// The wheel's buckets, worked out in integer nanoseconds: a deadline is never due early and
/// at most one granularity late.
@Suite("Deadline wheel")
struct DeadlineWheelTests {
    @Test("a deadline is due from its time on, never before, and at most one granularity late")
    func dueNeitherEarlyNorLate() {
        let origin = ContinuousClock.now
        var wheel = DeadlineWheel(origin: origin, granularity: .milliseconds(10))
        let offsets: [Duration] = [.zero, .nanoseconds(1), .milliseconds(10), .microseconds(10_001), .milliseconds(25)]
        var requests: [(PendingRequest, Duration)] = []
        for (index, offset) in offsets.enumerated() {
            let request = PendingRequest.make(
                WireRequest(requestID: "r:\(index)", action: "Echo.say", input: []), sender: nil, order: UInt64(index),
                deadline: origin + offset
            )
            wheel.insert(request, at: origin + offset)
            requests.append((request, offset))
        }
        var dueAt: [ObjectIdentifier: Duration] = [:]
        var now = Duration.zero
        while now <= .milliseconds(50) {
            for request in wheel.removeDue(now: origin + now) { dueAt[ObjectIdentifier(request)] = now }
            now += .milliseconds(1)
        }
        for (request, offset) in requests {
            guard let due = dueAt[ObjectIdentifier(request)] else {
                Issue.record("the deadline at \(offset) never came due")
                continue
            }
            #expect(due >= offset)
            #expect(due <= offset + .milliseconds(10))
        }
    }
}
