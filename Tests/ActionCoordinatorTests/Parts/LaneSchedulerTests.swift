@testable import ActionCoordinator
import ActionWire
import Testing

/// The scheduler alone: lanes take turns in the order they filled, a session's requests leave
/// in order, a lane waiting for its host is parked on it, stale entries are dropped.
@Suite("Coordinator parts: lane scheduler")
struct LaneSchedulerTests {
    typealias F = PartsFixtures

    /// A target that sends to one worker, up to `credits` requests, as `decide` says.
    final class OneWorker: LaneDispatchTarget {
        let worker: WorkerRecord
        var credits: Int
        let decide: (PendingRequest) -> DispatchChoice
        var sent: [String] = []

        init(_ worker: WorkerRecord, credits: Int, decide: @escaping (PendingRequest) -> DispatchChoice) {
            self.worker = worker
            self.credits = credits
            self.decide = decide
        }

        var hasCredit: Bool { credits > 0 }

        func choose(for pending: PendingRequest) -> DispatchChoice {
            // As the core's choice: no worker while no credit is left.
            guard credits > 0 else { return .waitForAny }
            if case .waitForAny = decide(pending) { return .worker(worker) }
            return decide(pending)
        }

        func send(_ pending: PendingRequest, to worker: WorkerRecord) {
            pending.placement = .running(on: worker.id)
            sent.append(pending.requestID)
            credits -= 1
        }
    }

    /// Runs one dispatch in which every request may go to `worker`, up to `credits` of them;
    /// returns the ids sent, in order.
    func dispatch(
        _ scheduler: LaneScheduler, credits: Int, to worker: WorkerRecord,
        choose: @escaping (PendingRequest) -> DispatchChoice = { _ in .waitForAny }, nowOffset: Int64 = ClockOffset.of(F.origin)
    ) -> [String] {
        let target = OneWorker(worker, credits: credits, decide: choose)
        scheduler.dispatch(nowOffset: nowOffset, to: target)
        return target.sent
    }

    func enqueue(_ scheduler: LaneScheduler, _ requests: [PendingRequest]) {
        for request in requests { scheduler.enqueue(request, lane: request.lane, atHead: false) }
    }

    @Test func lanesTakeTurnsInTheOrderTheyFilledAndARedeliveryGoesFirst() {
        let scheduler = LaneScheduler()
        let worker = F.worker("w")
        enqueue(scheduler, [F.request("a1", action: "A.a"), F.request("b1", action: "B.b"), F.request("a2", action: "A.a")])
        let redelivered = F.request("a0", action: "A.a")
        scheduler.enqueue(redelivered, lane: redelivered.lane, atHead: true)
        #expect(scheduler.queuedCount == 4)
        #expect(dispatch(scheduler, credits: 10, to: worker) == ["a0", "a1", "a2", "b1"])
        #expect(scheduler.queuedCount == 0 && scheduler.waiting.isEmpty && !scheduler.holds(.action("A.a")))
    }

    @Test func withoutCreditNothingLeavesAndTheLaneKeepsItsPlace() {
        let scheduler = LaneScheduler()
        let worker = F.worker("w")
        enqueue(scheduler, [F.request("a1", action: "A.a"), F.request("a2", action: "A.a"), F.request("b1", action: "B.b")])
        #expect(dispatch(scheduler, credits: 1, to: worker) == ["a1"])
        #expect(Array(scheduler.waiting) == [.action("A.a"), .action("B.b")])
        #expect(dispatch(scheduler, credits: 0, to: worker).isEmpty)
        #expect(dispatch(scheduler, credits: 5, to: worker) == ["a2", "b1"])
    }

    @Test func aSessionWaitingForItsHostIsParkedUntilTheHostHasRoom() {
        let scheduler = LaneScheduler()
        let host = F.worker("host"), other = F.worker("other")
        enqueue(scheduler, [F.request("s1", session: "s"), F.request("free", action: "Free.go")])
        let sent = dispatch(scheduler, credits: 5, to: other) { pending in
            pending.hasSession ? .waitForHost(host.id) : .waitForAny
        }
        #expect(sent == ["free"])
        #expect(scheduler.parked[host.id] == [.session("s")] && scheduler.waiting.isEmpty)
        scheduler.unparkLanes { $0 != host.id }
        #expect(scheduler.parked[host.id] != nil, "its host has no room yet")
        scheduler.unparkLanes { $0 == host.id }
        #expect(scheduler.parked.isEmpty && Array(scheduler.waiting) == [.session("s")])
        #expect(dispatch(scheduler, credits: 5, to: host) == ["s1"])
    }

    @Test func aRequestPastItsDeadlineIsNotSentAndHoldsBackItsLaneOnly() {
        let scheduler = LaneScheduler()
        let worker = F.worker("w")
        enqueue(scheduler, [F.request("late", session: "s", deadline: .milliseconds(5)), F.request("next", session: "s"),
                            F.request("other", action: "B.b")])
        let sent = dispatch(scheduler, credits: 5, to: worker, nowOffset: ClockOffset.of(F.origin + .milliseconds(10)))
        #expect(sent == ["other"], "the session's next waits behind its late request, in order")
        #expect(Array(scheduler.waiting) == [.session("s")])
    }

    @Test func requestsThatLeftWithoutDispatchAreSkippedAndSweptWhenTheyPileUp() {
        let scheduler = LaneScheduler()
        let worker = F.worker("w")
        let requests = (0..<3).map { F.request("r\($0)") }
        enqueue(scheduler, requests)
        requests[1].isFinished = true
        scheduler.leaveQueue()
        #expect(scheduler.queuedCount == 2 && scheduler.staleEntries == 1)
        #expect(dispatch(scheduler, credits: 5, to: worker) == ["r0", "r2"])
        #expect(scheduler.staleEntries == 0)

        let many = (0..<10_002).map { F.request("m\($0)", action: "Nobody.serves") }
        enqueue(scheduler, many)
        for request in many {
            request.isFinished = true
            scheduler.leaveQueue()
        }
        #expect(scheduler.staleEntries < 10_002, "swept at once past the bound")
        #expect(scheduler.queuedCount == 0)
        scheduler.dropStaleEntries()
        #expect(scheduler.waiting.isEmpty && scheduler.lanes.isEmpty)
    }
}
