import ActionCoordinator
import ActionWire
import Testing

/// Deadlines, dead and departing workers, redelivery and poisoning.
@Suite("Coordinator core: failures")
struct CoordinatorFailureTests {
    let w1 = WorkerID([0xA1])
    let w2 = WorkerID([0xB2])
    let w3 = WorkerID([0xC3])

    @Test func aQueuedRequestNobodyServesFailsNoWorkerAtItsDeadline() throws {
        let h = CoordinatorHarness()
        h.ready(w1, actions: ["Math.fibonacci"])
        h.perform("r", action: "Echo.say", timeoutMilliseconds: 500)
        h.tick(at: .milliseconds(499))
        #expect(h.outcome("r") == nil)
        h.tick(at: .milliseconds(501))
        let outcome = try #require(h.outcome("r"))
        #expect(outcome.failureCode == BusErrorCode.noWorker)
        #expect(outcome.failureMessage?.contains("Math.fibonacci") == true)
        #expect(outcome.worker == "")
        #expect(h.core.statistics.queued == 0)
        #expect(h.core.statistics.completed == 1)
    }

    @Test func anActionNobodyServesFailsNoWorkerAfterTheGraceWithASuggestion() throws {
        let h = CoordinatorHarness {
            $0.noWorkerGrace = .seconds(2); $0.heartbeatInterval = .seconds(1); $0.heartbeatLiveness = 3
        }
        h.ready(w1, actions: ["Echo.say", "Math.fibonacci"], at: .seconds(10))
        // Past the start-up grace (2 s + 4 heartbeats for workers to find a restarted coordinator).
        h.perform("typo", action: "Echo.sya", timeoutMilliseconds: 60_000, at: .seconds(10))
        h.tick(at: .milliseconds(11_900))
        #expect(h.outcome("typo") == nil)
        h.tick(at: .milliseconds(12_100))
        let outcome = try #require(h.outcome("typo"))
        #expect(outcome.failureCode == BusErrorCode.noWorker)
        #expect(outcome.failureMessage?.contains("did you mean Echo.say?") == true)
        #expect(outcome.failureMessage?.contains("Echo.say, Math.fibonacci") == true)
    }

    @Test func aWorkerThatRegistersWithinTheGraceGetsTheRequest() {
        let h = CoordinatorHarness { $0.noWorkerGrace = .seconds(2) }
        h.perform("early", timeoutMilliseconds: 60_000, at: .seconds(10))
        h.ready(w1, at: .seconds(11))
        h.tick(at: .milliseconds(12_500))
        #expect(h.requestIDs(to: w1) == ["early"])
        #expect(h.outcome("early") == nil)
    }

    @Test func requestsAtStartWaitForTheStartUpGrace() {
        let h = CoordinatorHarness {
            $0.noWorkerGrace = .seconds(2); $0.heartbeatInterval = .seconds(1); $0.heartbeatLiveness = 3
        }
        h.perform("first", timeoutMilliseconds: 60_000)
        h.tick(at: .seconds(5))
        #expect(h.outcome("first") == nil, "workers get 2 s + 4 heartbeats to come back after a restart")
        h.tick(at: .milliseconds(6_100))
        #expect(h.outcome("first")?.failureCode == BusErrorCode.noWorker)
    }

    @Test func everyReadyIsAnsweredWithTheCoordinatorsTerms() {
        let h = CoordinatorHarness { $0.maxMessageBytes = 65_536; $0.heartbeatInterval = .milliseconds(250); $0.heartbeatLiveness = 4 }
        h.ready(w1)
        h.ready(w1)
        let expected = WorkerTerms(maxMessageBytes: 65_536, heartbeatMilliseconds: 250, heartbeatLiveness: 4)
        #expect(h.welcomes(to: w1) == [expected, expected])
    }

    @Test func aQueuedRequestWhoseWorkersAreBusyTimesOut() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        h.perform("busy", timeoutMilliseconds: 60_000)
        h.perform("waits", timeoutMilliseconds: 500)
        h.tick(at: .seconds(1))
        #expect(h.outcome("waits")?.failureCode == BusErrorCode.timedOut)
        #expect(h.outcome("busy") == nil)
    }

    @Test func aRunningRequestPastDeadlineAndGraceTimesOutAndItsLateResultIsDiscarded() throws {
        let h = CoordinatorHarness { $0.deadlineGrace = .seconds(2) }
        h.ready(w1, credits: 1)
        let request = h.perform("slow", timeoutMilliseconds: 1_000)
        h.perform("next")
        #expect(h.requestIDs(to: w1) == ["slow"])

        // Past the deadline but within the grace: the worker may still answer.
        h.worker(w1, sends: .heartbeat, at: .milliseconds(2_500))
        h.tick(at: .milliseconds(2_900))
        #expect(h.outcome("slow") == nil)
        h.tick(at: .milliseconds(3_001))
        let outcome = try #require(h.outcome("slow"))
        #expect(outcome.failureCode == BusErrorCode.timedOut)
        // Past its deadline and the grace the worker's own timeout fired long ago: its answer
        // was lost, so the credit comes back now (it would otherwise leak) and "next" runs.
        #expect(h.requestIDs(to: w1) == ["slow", "next"])
        #expect(h.core.statistics.running == 1)

        // A late answer after all is discarded, and returns no second credit.
        h.worker(w1, sends: .heartbeat, at: .milliseconds(3_100))
        h.complete(request, on: w1, at: .milliseconds(3_200))
        #expect(h.core.statistics.lateResultsDiscarded == 1)
        #expect(h.outcomes.filter { $0.requestID == "slow" }.count == 1)
        #expect(h.events.filter { $0.outcome.requestID == "slow" }.count == 2)
        h.perform("third", at: .milliseconds(3_300))
        #expect(h.requestIDs(to: w1) == ["slow", "next"], "one credit: next still holds it")
    }

    @Test func heartbeatsGoToEachWorkerEveryInterval() {
        let h = CoordinatorHarness { $0.heartbeatInterval = .seconds(1) }
        h.ready(w1)
        h.tick(at: .milliseconds(500))
        #expect(h.controlInstructions(to: w1).isEmpty)
        h.tick(at: .milliseconds(1_000))
        #expect(h.controlInstructions(to: w1) == [.heartbeat])
        h.tick(at: .milliseconds(1_500))
        #expect(h.controlInstructions(to: w1) == [.heartbeat])
        h.worker(w1, sends: .heartbeat, at: .milliseconds(1_900))
        h.tick(at: .milliseconds(2_000))
        #expect(h.controlInstructions(to: w1) == [.heartbeat, .heartbeat])
    }

    @Test func aWorkerHeardFromStaysAlive() {
        let h = CoordinatorHarness { $0.heartbeatInterval = .seconds(1); $0.heartbeatLiveness = 3 }
        h.ready(w1)
        for second in 1...10 {
            h.worker(w1, sends: .heartbeat, at: .seconds(second))
            h.tick(at: .seconds(second) + .milliseconds(500))
        }
        #expect(h.core.statistics.workers == 1)
        #expect(h.core.statistics.workersExpired == 0)
    }

    @Test func aSilentWorkerExpiresAndItsRequestsMoveToAnotherWorker() {
        let h = CoordinatorHarness { $0.heartbeatInterval = .seconds(1); $0.heartbeatLiveness = 3 }
        h.ready(w1, credits: 10)
        let requests = (1...3).map { h.perform("r\($0)", session: "s") }
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3"])
        h.ready(w2, credits: 10, at: .seconds(2))

        h.worker(w2, sends: .heartbeat, at: .seconds(3))
        h.tick(at: .milliseconds(3_000))
        #expect(h.core.statistics.workers == 2)
        h.tick(at: .milliseconds(3_001))
        #expect(h.core.statistics.workers == 1)
        #expect(h.core.statistics.workersExpired == 1)
        #expect(h.core.statistics.redelivered == 3)
        // Redelivered in acceptance order, to the survivor, which now hosts the session.
        #expect(h.requestIDs(to: w2) == ["r1", "r2", "r3"])
        for request in requests { h.complete(request, on: w2, at: .seconds(4)) }
        #expect(h.outcomes.map(\.requestID) == ["r1", "r2", "r3"])
        #expect(h.outcomes.allSatisfy { $0.worker == "worker-\(w2)" })

        // A result from the dead worker arrives late: discarded, and it must register again.
        h.complete(requests[0], on: w1, at: .seconds(5))
        #expect(h.core.statistics.lateResultsDiscarded == 1)
        #expect(h.controlInstructions(to: w1).last == .disconnect)
        #expect(h.outcomes.count == 3)
    }

    @Test func aRequestWhoseWorkersKeepDyingIsPoisoned() throws {
        let h = CoordinatorHarness {
            $0.heartbeatInterval = .seconds(1); $0.heartbeatLiveness = 3; $0.maxDeliveries = 3
            $0.defaultTimeout = .seconds(600)
        }
        h.perform("deadly")
        var clock: Duration = .zero
        for (death, worker) in [w1, w2, w3].enumerated() {
            h.ready(worker, at: clock)
            #expect(h.requestIDs(to: worker) == ["deadly"], "delivery \(death + 1)")
            clock += .seconds(4)
            h.tick(at: clock)
            #expect(h.core.statistics.workersExpired == death + 1)
        }
        let outcome = try #require(h.outcome("deadly"))
        #expect(outcome.failureCode == BusErrorCode.poisoned)
        #expect(outcome.failureMessage?.contains("3 times") == true)
        #expect(h.core.statistics.redelivered == 2)
        #expect(h.core.statistics.queued == 0)
        #expect(h.core.statistics.running == 0)
        // A fourth worker never sees it.
        let w4 = WorkerID([0xD4])
        h.ready(w4, at: clock)
        #expect(h.requests(to: w4).isEmpty)
    }

    @Test func aMessageFromAnUnknownWorkerIsAnsweredWithDisconnect() {
        let h = CoordinatorHarness()
        h.worker(w1, sends: .heartbeat)
        #expect(h.controlInstructions(to: w1) == [.disconnect])
        let stray = WireOutcome(
            requestID: "x", action: "Echo.say", session: "", worker: "w", closeActionStack: false,
            result: .success(contentType: WireRequest.json, output: [])
        )
        h.worker(w1, sends: .result(stray))
        #expect(h.controlInstructions(to: w1) == [.disconnect, .disconnect])
        #expect(h.core.statistics.lateResultsDiscarded == 1)
        #expect(h.outcomes.isEmpty)
        // Its DISCONNECT needs no answer.
        h.worker(w1, sends: .disconnect)
        #expect(h.controlInstructions(to: w1) == [.disconnect, .disconnect])
        #expect(h.core.statistics.workers == 0)
    }

    @Test func aResultForARequestTheWorkerDoesNotHoldIsDiscarded() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        h.ready(w2, credits: 1)
        let request = h.perform("r")
        let holder = h.requests(to: w1).isEmpty ? w2 : w1
        let other = holder == w1 ? w2 : w1
        h.complete(request, on: other)
        #expect(h.outcome("r") == nil)
        #expect(h.core.statistics.lateResultsDiscarded == 1)
        h.complete(request, on: holder)
        #expect(h.outcome("r")?.isSuccess == true)
    }

    @Test func aDepartingWorkersRequestsAreRequeuedWithoutCountingADelivery() throws {
        let h = CoordinatorHarness { $0.maxDeliveries = 1 }
        h.ready(w1, credits: 5)
        let request = h.perform("r", session: "s")
        h.worker(w1, sends: .disconnect, at: .seconds(1))
        #expect(h.core.statistics.workers == 0)
        #expect(h.core.statistics.queued == 1)
        #expect(h.core.statistics.redelivered == 1)
        #expect(h.controlInstructions(to: w1).isEmpty)

        // With maxDeliveries 1, one counted death would have poisoned it.
        h.ready(w2, credits: 5, at: .seconds(2))
        #expect(h.requestIDs(to: w2) == ["r"])
        h.worker(w2, sends: .disconnect, at: .seconds(3))
        h.ready(w3, credits: 5, at: .seconds(4))
        #expect(h.requestIDs(to: w3) == ["r"])
        h.complete(request, on: w3, at: .seconds(5))
        #expect(h.outcome("r")?.isSuccess == true)
    }

    @Test func registeringAgainOnTheSameConnectionKeepsWhatTheWorkerRuns() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        h.perform("r1")
        h.perform("r2")
        #expect(h.requestIDs(to: w1) == ["r1"])
        // A repeated READY (say, answering several DISCONNECTs) comes from the same process:
        // r1 is still running there, is not sent again, and its credit stays out.
        h.ready(w1, credits: 1, at: .seconds(1))
        h.ready(w1, credits: 1, at: .seconds(1))
        #expect(h.requestIDs(to: w1) == ["r1"])
        #expect(h.core.statistics.redelivered == 0)
        #expect(h.core.statistics.workers == 1)
        #expect(h.core.statistics.queued == 1)
        h.complete(h.requests(to: w1)[0], on: w1, at: .seconds(2))
        #expect(h.outcome("r1")?.isSuccess == true)
        #expect(h.requestIDs(to: w1) == ["r1", "r2"])
    }

    @Test func aDrainingWorkerThatRegistersAgainGetsNoNewWork() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 2)
        let running = h.perform("r1")
        h.worker(w1, sends: .draining, at: .seconds(1))
        // READY again on the same connection, with more credits even: it is still leaving.
        h.ready(w1, credits: 4, at: .seconds(2))
        h.perform("r2", at: .seconds(2))
        #expect(h.requestIDs(to: w1) == ["r1"])
        #expect(h.core.statistics.queued == 1)
        // Its result frees no credit either; the queued request waits for another worker.
        h.complete(running, on: w1, at: .seconds(3))
        h.ready(w1, credits: 4, at: .seconds(3))
        h.perform("r3", at: .seconds(3))
        #expect(h.requestIDs(to: w1) == ["r1"])
        #expect(h.core.statistics.queued == 2)
        h.ready(w2, credits: 1, at: .seconds(4))
        #expect(h.requestIDs(to: w2) == ["r2"])
        #expect(h.requestIDs(to: w1) == ["r1"])
    }

    @Test func aSessionBlockedBehindAnUnservableRequestMovesOnWhenThatRequestExpires() {
        let h = CoordinatorHarness()
        h.ready(w1, actions: ["Echo.say"])
        h.perform("blocker", action: "Math.fibonacci", session: "s", timeoutMilliseconds: 100)
        h.perform("after", action: "Echo.say", session: "s", timeoutMilliseconds: 10_000)
        #expect(h.requests(to: w1).isEmpty)
        h.tick(at: .milliseconds(200))
        #expect(h.outcome("blocker")?.failureCode == BusErrorCode.noWorker)
        // Nothing else happens on the bus, yet the session's next request must run now.
        #expect(h.requestIDs(to: w1) == ["after"])
    }
}
