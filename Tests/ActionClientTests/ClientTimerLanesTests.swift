@testable import ActionClient
import ActionWire
import Testing

/// The client's timers: FIFO lanes per timeout and kind, with a heap past the lane limit, must
/// give back exactly what a single heap would: every timer once, earliest first, none early.
@Suite("Client timer lanes")
struct ClientTimerLanesTests {
    static let origin = ContinuousClock.now

    static func timer(_ id: String, timeout: Duration, at offset: Duration, kind: ClientTimer.Kind = .deadline) -> ClientTimer {
        let call = PendingCall(
            request: WireRequest(requestID: id, action: "Echo.say", input: []),
            timeout: timeout, deadline: origin + offset, deliver: { _ in }
        )
        return ClientTimer(at: origin + offset, call: call, kind: kind)
    }

    /// Pops everything due at `offset`, in order.
    static func due(_ lanes: inout ClientTimerLanes, at offset: Duration) -> [String] {
        var popped: [String] = []
        while let timer = lanes.popDue(now: origin + offset) { popped.append(timer.call.request.requestID) }
        return popped
    }

    @Test("timers of several timeouts and kinds come back earliest first, and not before their time")
    func earliestFirstAcrossLanes() {
        var lanes = ClientTimerLanes()
        lanes.insert(Self.timer("a", timeout: .seconds(10), at: .seconds(10)))
        lanes.insert(Self.timer("b", timeout: .seconds(2), at: .seconds(2)))
        lanes.insert(Self.timer("c", timeout: .seconds(10), at: .seconds(11)))
        lanes.insert(Self.timer("d", timeout: .seconds(2), at: .seconds(3), kind: .lastChance))
        lanes.insert(Self.timer("e", timeout: .seconds(2), at: .seconds(4)))
        #expect(lanes.count == 5)
        #expect(Self.due(&lanes, at: .seconds(1)).isEmpty)
        #expect(Self.due(&lanes, at: .seconds(3)) == ["b", "d"])
        #expect(Self.due(&lanes, at: .seconds(10)) == ["e", "a"])
        #expect(lanes.count == 1)
        #expect(Self.due(&lanes, at: .seconds(60)) == ["c"])
        #expect(lanes.count == 0)
    }

    @Test("a call that reaches the loop after a later one of the same timeout still comes first")
    func outOfOrderArrivalWithinALane() {
        var lanes = ClientTimerLanes()
        lanes.insert(Self.timer("second", timeout: .seconds(5), at: .milliseconds(5_002)))
        lanes.insert(Self.timer("third", timeout: .seconds(5), at: .milliseconds(5_003)))
        lanes.insert(Self.timer("first", timeout: .seconds(5), at: .milliseconds(5_001)))
        #expect(Self.due(&lanes, at: .milliseconds(5_001)) == ["first"])
        #expect(Self.due(&lanes, at: .seconds(6)) == ["second", "third"])
    }

    @Test("past the lane limit, timeouts share a heap and the order still holds")
    func overflowBeyondTheLaneLimit() {
        var lanes = ClientTimerLanes()
        let count = ClientTimerLanes.maxLanes * 3
        // Distinct timeouts, inserted longest first, so the heap holds the earliest ones.
        for index in (0..<count).reversed() {
            lanes.insert(Self.timer("t\(index)", timeout: .milliseconds(100 + index), at: .milliseconds(100 + index)))
        }
        #expect(lanes.count == count)
        #expect(Self.due(&lanes, at: .seconds(60)) == (0..<count).map { "t\($0)" })
    }

    @Test("void timers are dropped in place, the rest keep their order")
    func removingVoidTimers() {
        var lanes = ClientTimerLanes()
        for index in 0..<40 {
            lanes.insert(Self.timer("t\(index)", timeout: .milliseconds(index % 20 == 0 ? 50 : 7 + index), at: .milliseconds(1_000 + index)))
        }
        lanes.removeAll { Int($0.call.request.requestID.dropFirst())! % 3 == 0 }
        let kept = (0..<40).filter { $0 % 3 != 0 }
        #expect(lanes.count == kept.count)
        #expect(Self.due(&lanes, at: .seconds(60)) == kept.map { "t\($0)" })
    }
}
