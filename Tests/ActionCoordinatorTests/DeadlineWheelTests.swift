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

    @Test("a deadline of never stays never, with the wheel's origin before the process's epoch")
    func neverIsNotWrappedIntoThePast() {
        let origin = ClockOffset.epoch - .seconds(3_600)
        #expect(ClockOffset.of(origin) < 0)
        var wheel = DeadlineWheel(origin: origin)
        let request = PendingRequest.make(
            WireRequest(requestID: "never", action: "Echo.say", input: []), sender: nil, order: 1, deadline: origin
        )
        wheel.insert(request, atOffset: .max)
        #expect(wheel.removeDue(now: origin + .seconds(7_200)).isEmpty)
        wheel.remove(request)
        #expect(request.wheelBucket == nil)
    }

    @Test("saturating sums and differences stay on the side they overflowed to")
    func saturatingArithmeticStaysOnItsSide() {
        #expect(Int64.max.addingSaturating(1) == .max)
        #expect(Int64.min.addingSaturating(-1) == .min)
        #expect(Int64(5).addingSaturating(-7) == -2)
        #expect(Int64.max.subtractingSaturating(-1) == .max)
        #expect(Int64.min.subtractingSaturating(1) == .min)
        #expect(Int64(-5).subtractingSaturating(.max) == .min)
        #expect(Int64(5).subtractingSaturating(7) == -2)
    }

    @Test("requests moved, removed and inserted again, in buckets used one after another, each come due once, on time")
    func movesAndRemovalsAgainstAModel() {
        let origin = ContinuousClock.now
        var wheel = DeadlineWheel(origin: origin, granularity: .milliseconds(10))
        var generator = SplitMix(seed: 7)
        let requests = (0..<200).map { index in
            PendingRequest.make(
                WireRequest(requestID: "r:\(index)", action: "Echo.say", input: []), sender: nil, order: UInt64(index),
                deadline: origin
            )
        }
        // What the wheel should hold: each request's deadline, or none.
        var model: [ObjectIdentifier: Duration] = [:]
        var now = Duration.zero
        for step in 0..<3_000 {
            let request = requests[Int(generator.next() % UInt64(requests.count))]
            switch generator.next() % 4 {
            case 0:
                wheel.remove(request)
                model[ObjectIdentifier(request)] = nil
            default:
                // Few distinct deadlines near now: the same bucket again and again, then another.
                let deadline = now + .milliseconds(Int64(generator.next() % 4) * 10 + Int64(step % 3))
                wheel.insert(request, at: origin + deadline)
                model[ObjectIdentifier(request)] = deadline
            }
            if step % 7 == 0 {
                now += .milliseconds(3)
                for due in wheel.removeDue(now: origin + now) {
                    // Once: a second time, without being inserted again, finds no deadline.
                    let deadline = model.removeValue(forKey: ObjectIdentifier(due))
                    #expect(deadline.map { $0 <= now && now <= $0 + .milliseconds(13) } == true, "due at \(now), deadline \(String(describing: deadline))")
                }
            }
        }
        // Whatever is left comes due, each once, and nothing else does.
        now += .seconds(1)
        let rest = wheel.removeDue(now: origin + now)
        #expect(Set(rest.map(ObjectIdentifier.init)) == Set(model.keys))
        #expect(rest.count == model.count)
        #expect(wheel.removeDue(now: origin + now + .seconds(1)).isEmpty)
    }
}

/// A small deterministic generator, so that a failure repeats.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E49B
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
