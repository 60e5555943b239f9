import ActionCoordinator
import ActionWire
import Testing

/// Acceptance, queueing, credits, load balancing and sticky sessions.
@Suite("Coordinator core: routing")
struct CoordinatorRoutingTests {
    let w1 = WorkerID([0xA1])
    let w2 = WorkerID([0xB2])
    let w3 = WorkerID([0xC3])

    @Test func performIsAcceptedThenQueuedUntilAWorkerRegisters() {
        let h = CoordinatorHarness()
        let request = h.perform("c1:1")
        #expect(h.replies == [.accepted(requestID: "c1:1")])
        #expect(h.outbox.instructions.isEmpty)
        #expect(h.core.statistics.queued == 1)
        #expect(h.core.statistics.running == 0)

        h.ready(w1, at: .seconds(1))
        let sent = h.requests(to: w1)
        #expect(sent.count == 1)
        #expect(sent.first?.requestID == request.requestID)
        #expect(sent.first?.action == "Echo.say")
        #expect(sent.first?.input == request.input)
        #expect(h.core.statistics.queued == 0)
        #expect(h.core.statistics.running == 1)
        #expect(h.core.statistics.workers == 1)
    }

    @Test func requestCarriesTheTimeLeftUntilItsDeadline() {
        let h = CoordinatorHarness { $0.defaultTimeout = .seconds(30) }
        h.perform("default")
        h.perform("explicit", timeoutMilliseconds: 5_000)
        h.ready(w1, at: .seconds(2))
        let sent = h.requests(to: w1)
        #expect(sent.map(\.requestID) == ["default", "explicit"])
        #expect(sent.first?.timeoutMilliseconds == 28_000)
        #expect(sent.last?.timeoutMilliseconds == 3_000)
    }

    /// Past 10 000 entries of requests that left their lanes without dispatch, the lanes are
    /// swept at once; a request queued after the sweep must land in a lane dispatch still sees
    /// (the lane enqueued into last is remembered, and must be forgotten with the sweep).
    @Test func aLaneSweptOfStaleEntriesStillTakesAndDispatchesNewRequests() {
        let h = CoordinatorHarness()
        let ids = (0...10_000).map { "stale\($0)" }
        h.send(.performBatch(ids.map { h.request($0) }))
        for id in ids { h.send(.cancel(requestID: id)) }
        #expect(h.core.statistics.queued == 0)
        h.perform("after")
        h.ready(w1)
        #expect(h.requestIDs(to: w1) == ["after"])
    }

    @Test func onlyWorkersServingTheActionGetIt() {
        let h = CoordinatorHarness()
        h.ready(w1, actions: ["Math.fibonacci"])
        h.perform("e", action: "Echo.say")
        #expect(h.requests(to: w1).isEmpty)
        h.ready(w2, actions: ["Echo.say"])
        #expect(h.requestIDs(to: w2) == ["e"])
        #expect(h.requests(to: w1).isEmpty)
    }

    // The workers serving each action are kept between registrations, and the last action
    // routed keeps its workers: a worker registering again with other actions, or leaving,
    // must change where the very next request goes.

    @Test func aWorkerRegisteringAgainWithOtherActionsIsRoutedByItsNewCatalog() {
        let h = CoordinatorHarness()
        h.ready(w1, actions: ["Echo.say"])
        h.perform("before", action: "Echo.say")
        #expect(h.requestIDs(to: w1) == ["before"])
        h.ready(w1, actions: ["Math.fibonacci"], at: .seconds(1))
        h.perform("echo", action: "Echo.say", at: .seconds(1))
        h.perform("fib", action: "Math.fibonacci", at: .seconds(1))
        #expect(h.requestIDs(to: w1) == ["before", "fib"])
        #expect(h.core.statistics.queued == 1)
        h.ready(w2, actions: ["Echo.say"], at: .seconds(2))
        #expect(h.requestIDs(to: w2) == ["echo"])
    }

    @Test func aWorkerThatLeavesGetsNothingMoreOfItsAction() {
        let h = CoordinatorHarness()
        h.ready(w1, actions: ["Echo.say"])
        h.ready(w2, actions: ["Echo.say"])
        h.perform("a", action: "Echo.say")
        h.worker(w1, sends: .disconnect)
        h.worker(w2, sends: .disconnect)
        h.perform("b", action: "Echo.say", at: .seconds(1))
        h.ready(w3, actions: ["Echo.say"], at: .seconds(1))
        #expect(h.requestIDs(to: w3).contains("b"))
        #expect(!(h.requestIDs(to: w1) + h.requestIDs(to: w2)).contains("b"))
    }

    @Test func neverMoreInFlightThanCreditsAndAResultDispatchesTheNext() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 2)
        let requests = (1...5).map { h.perform("r\($0)") }
        #expect(h.requestIDs(to: w1) == ["r1", "r2"])
        #expect(h.core.statistics.running == 2)
        #expect(h.core.statistics.queued == 3)

        h.complete(requests[0], on: w1)
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3"])
        #expect(h.core.statistics.running == 2)
        #expect(h.core.statistics.queued == 2)

        // Answer everything as it arrives: at no point do more than 2 run.
        var answered: Set<String> = ["r1"]
        while let next = h.requests(to: w1).first(where: { !answered.contains($0.requestID) }) {
            #expect(h.requests(to: w1).count - answered.count <= 2)
            answered.insert(next.requestID)
            h.complete(next, on: w1)
        }
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3", "r4", "r5"])
        #expect(Set(h.outcomes.map(\.requestID)) == Set(requests.map(\.requestID)))
        #expect(h.core.statistics.running == 0)
        #expect(h.core.statistics.queued == 0)
    }

    @Test func leastLoadedWorkerFirst() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 10)
        h.ready(w2, credits: 10)
        for n in 1...6 { h.perform("r\(n)") }
        #expect(h.requests(to: w1).count == 3)
        #expect(h.requests(to: w2).count == 3)

        // Drain w1 (3 in flight on w2, none on w1): the next two go to w1, not to w2.
        for request in h.requests(to: w1) { h.complete(request, on: w1) }
        h.perform("r7")
        h.perform("r8")
        #expect(h.requestIDs(to: w1).suffix(2) == ["r7", "r8"])
        #expect(h.requests(to: w2).count == 3)
    }

    @Test func onATieTheWorkerWithMoreRoomWins() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        h.ready(w2, credits: 8)
        h.perform("r1")
        #expect(h.requestIDs(to: w2) == ["r1"])
    }

    @Test func aSessionStaysOnOneWorkerInOrderEvenWhenItIsFull() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 2)
        h.ready(w2, credits: 2)
        let s = (1...5).map { h.perform("s\($0)", action: "Sequence.next", session: "doc") }
        let host = h.requests(to: w1).isEmpty ? w2 : w1
        let other = host == w1 ? w2 : w1
        #expect(h.requestIDs(to: host) == ["s1", "s2"])
        #expect(h.requests(to: other).isEmpty)
        #expect(h.core.statistics.queued == 3)

        // Unrelated work still flows to the free worker.
        h.perform("free")
        #expect(h.requestIDs(to: other) == ["free"])

        // As the host frees credits, the session's requests follow, in submission order.
        h.complete(s[0], on: host)
        h.complete(s[1], on: host)
        #expect(h.requestIDs(to: host) == ["s1", "s2", "s3", "s4"])
        h.complete(s[2], on: host)
        #expect(h.requestIDs(to: host) == ["s1", "s2", "s3", "s4", "s5"])
        #expect(h.requestIDs(to: other) == ["free"])
    }

    @Test func anIdleSessionIsUnpinnedAfterTheIdleTimeout() {
        let h = CoordinatorHarness { $0.sessionIdleTimeout = .seconds(60) }
        h.ready(w1, credits: 10)
        h.ready(w2, credits: 10)
        let first = h.perform("s1", session: "s")
        let host = h.allRequests[0].worker
        h.complete(first, on: host, at: .seconds(1))
        func tick(at seconds: Int) {
            // The workers stay alive; only the session goes quiet.
            h.worker(w1, sends: .heartbeat, at: .seconds(seconds))
            h.worker(w2, sends: .heartbeat, at: .seconds(seconds))
            h.tick(at: .seconds(seconds))
        }
        tick(at: 30)
        #expect(h.core.statistics.sessions == 1)
        tick(at: 60)
        #expect(h.core.statistics.sessions == 1, "60 s after its last answer, not more")
        tick(at: 62)
        #expect(h.core.statistics.sessions == 0)
        h.perform("s2", session: "s", at: .seconds(62))
        #expect(h.core.statistics.sessions == 1)
        #expect(h.allRequests.count == 2)
    }

    @Test func sessionsWaitingOnABusyWorkerLetOthersPassAndResumeInOrder() {
        let h = CoordinatorHarness { $0.defaultTimeout = .seconds(600) }
        h.ready(w1, credits: 1)
        // 100 sessions pinned to w1, its one credit taken by the first.
        for n in 1...100 { h.perform("first-\(n)", session: "s\(n)") }
        h.ready(w2, credits: 1_000)
        #expect(h.requestIDs(to: w1) == ["first-1"])
        // The other sessions were not pinned yet: they went to w2 as it came.
        #expect(h.requests(to: w2).count == 99)
        for n in 1...20 { h.perform("later-\(n)", session: "s1") }
        // Requests without a session pass the waiting session to w2.
        for n in 1...50 { h.perform("free-\(n)") }
        #expect(h.requestIDs(to: w2).filter { $0.hasPrefix("free") }.count == 50)
        #expect(h.requestIDs(to: w1) == ["first-1"])
        // w1 frees its credit: the session's requests resume there, in order, one per credit.
        for n in 1...5 {
            h.complete(h.requests(to: w1).last!, on: w1)
            #expect(h.requestIDs(to: w1).last == "later-\(n)")
        }
        #expect(h.requestIDs(to: w2).filter { $0.hasPrefix("later") }.isEmpty)
    }

    @Test func aSessionStaysPinnedWhileOneOfItsRequestsStillRuns() {
        let h = CoordinatorHarness { $0.sessionIdleTimeout = .seconds(60); $0.defaultTimeout = .seconds(600) }
        h.ready(w1, credits: 10)
        h.ready(w2, credits: 10)
        h.perform("long", session: "s")
        let host = h.allRequests[0].worker
        let other = host == w1 ? w2 : w1
        // Idle far past the timeout, but "long" still runs on its host.
        for seconds in stride(from: 10, through: 120, by: 10) {
            h.worker(w1, sends: .heartbeat, at: .seconds(seconds))
            h.worker(w2, sends: .heartbeat, at: .seconds(seconds))
            h.tick(at: .seconds(seconds))
        }
        #expect(h.core.statistics.sessions == 1)
        // Unpinned, it would go to the other worker (the less loaded one): it stays.
        h.perform("next", session: "s", at: .seconds(120))
        #expect(h.requests(to: host).map(\.requestID).contains("next"))
        #expect(!h.requests(to: other).map(\.requestID).contains("next"))
    }

    @Test func aSessionMovesToAWorkerServingItsNextActionOnlyAfterItsRunningRequestsFinish() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 10, actions: ["Documents.open"])
        let opened = h.perform("open", action: "Documents.open", session: "doc")
        h.ready(w2, credits: 10, actions: ["Documents.open", "Documents.edit"])
        #expect(h.requestIDs(to: w1) == ["open"])
        h.perform("edit", action: "Documents.edit", session: "doc")
        #expect(h.requestIDs(to: w2).isEmpty, "the edit must not overtake the open still running on w1")
        h.complete(opened, on: w1)
        #expect(h.requestIDs(to: w2) == ["edit"])
    }

    @Test func sessionsSpreadButEachSticks() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 10)
        h.ready(w2, credits: 10)
        for round in 0..<3 {
            h.perform("a\(round)", session: "a")
            h.perform("b\(round)", session: "b")
        }
        let aHost = h.allRequests.first { $0.request.session == "a" }!.worker
        let bHost = h.allRequests.first { $0.request.session == "b" }!.worker
        #expect(aHost != bHost)
        #expect(h.requestIDs(to: aHost) == ["a0", "a1", "a2"])
        #expect(h.requestIDs(to: bHost) == ["b0", "b1", "b2"])
    }

    @Test func laterSessionRequestsWaitBehindAnEarlierOneThatCannotRun() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        h.perform("s1", session: "s")
        h.perform("s2", session: "s")
        h.perform("x", session: "other")
        #expect(h.requestIDs(to: w1) == ["s1"])
        h.ready(w2, credits: 5)
        // s2 must not overtake onto w2: its session lives on w1.
        #expect(h.requestIDs(to: w2) == ["x"])
        h.complete(h.requests(to: w1)[0], on: w1)
        #expect(h.requestIDs(to: w1) == ["s1", "s2"])
    }

    @Test func aWorkerThatCannotBeReachedGetsNothingMoreAndItsRequestGoesElsewhere() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 5)
        h.outbox.unreachable = [w1]
        h.perform("r1")
        #expect(h.requestIDs(to: w1) == ["r1"])
        // Not dead yet (it may be reconnecting under its routing id), but out of the pool.
        #expect(h.core.statistics.workers == 1)
        #expect(h.core.statistics.queued == 1)
        h.perform("r2")
        #expect(h.requestIDs(to: w1) == ["r1"])
        h.ready(w2, credits: 5)
        #expect(h.requestIDs(to: w2) == ["r1", "r2"])
        h.complete(h.requests(to: w2)[0], on: w2)
        #expect(h.outcome("r1")?.isSuccess == true)
        // Silent past the liveness, it expires like any worker.
        h.worker(w2, sends: .heartbeat, at: .seconds(3))
        h.tick(at: .seconds(4))
        #expect(h.core.statistics.workers == 1)
    }

    @Test func anUnreachableWorkerThatIsHeardFromAgainGetsWorkAgain() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 5)
        h.outbox.unreachable = [w1]
        h.perform("r1")
        h.outbox.unreachable = []
        h.worker(w1, sends: .heartbeat)
        #expect(h.requestIDs(to: w1) == ["r1", "r1"])
        #expect(h.core.statistics.running == 1)
        #expect(h.core.statistics.redelivered == 0)
    }

    @Test func aSessionKeepsItsOrderWhenItsHostTurnsOutUnreachableMidDispatch() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 5, actions: ["Echo.say", "Math.fibonacci"])
        h.ready(w2, credits: 1, actions: ["Math.fibonacci"])
        h.perform("s1", action: "Echo.say", session: "s")
        #expect(h.requestIDs(to: w1) == ["s1"])
        h.perform("u", action: "Nope.x")                     // waits, served by nobody
        h.outbox.unreachable = [w1]
        h.perform("s2", action: "Math.fibonacci", session: "s")
        // Sending s2 to w1 fails: w1 leaves the pool and s2 goes back to its lane. s2 must wait
        // for its session's host, not jump ahead to w2.
        #expect(h.core.statistics.workers == 2)
        #expect(h.requests(to: w2).isEmpty)
        #expect(h.core.statistics.queued == 2)
        // w1 never comes back: it expires, s1 is requeued ahead of s2, both go to w3 in order.
        h.ready(w3, credits: 5, actions: ["Echo.say", "Math.fibonacci"], at: .milliseconds(3_500))
        h.worker(w2, sends: .heartbeat, at: .milliseconds(3_500))
        h.tick(at: .seconds(4))
        #expect(h.requestIDs(to: w3) == ["s1", "s2"])
        #expect(h.requests(to: w2).isEmpty)
    }
}
