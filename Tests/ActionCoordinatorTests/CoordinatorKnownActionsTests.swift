import ActionCoordinator
import ActionJournal
import ActionWire
import Foundation
import Testing

/// Known actions: a request for an action the fleet served waits for a worker within its
/// deadline; one for an action never served (or forgotten) fails fast.
@Suite("Coordinator core: known actions")
struct CoordinatorKnownActionsTests {
    let w1 = WorkerID([0xA1])
    let w2 = WorkerID([0xB2])
    /// A known action's entry while a worker serves it.
    static let served: Date? = nil

    func harness(_ configure: @escaping (inout CoordinatorConfiguration) -> Void = { _ in }) -> CoordinatorHarness {
        CoordinatorHarness {
            $0.noWorkerGrace = .seconds(2); $0.heartbeatInterval = .seconds(1); $0.heartbeatLiveness = 3
            configure(&$0)
        }
    }

    @Test func aRequestForAKnownActionWaitsPastTheGraceForTheNextWorker() throws {
        let h = harness()
        h.ready(w1, actions: ["Echo.say"], at: .seconds(10))
        h.worker(w1, sends: .disconnect, at: .seconds(11))
        h.perform("gap", timeoutMilliseconds: 60_000, at: .seconds(12))
        h.tick(at: .seconds(30))
        #expect(h.outcome("gap") == nil, "known: it waits, where an unknown action fails after 2 s")
        h.ready(w2, actions: ["Echo.say"], at: .seconds(31))
        #expect(h.requestIDs(to: w2) == ["gap"])
        #expect(h.core.statistics.actionsWithoutWorker == 0)
    }

    @Test func aKnownActionWithNoWorkerFailsNoWorkerAtTheDeadlineAndSaysSinceWhen() throws {
        let h = harness()
        h.wallClock.fixed = Date(timeIntervalSince1970: 1_800_000_000)
        h.ready(w1, actions: ["Echo.say"], at: .seconds(10))
        h.worker(w1, sends: .disconnect, at: .seconds(11))
        #expect(h.core.statistics.actionsWithoutWorker == 1 && h.core.statistics.knownActions == 1)
        h.perform("late", timeoutMilliseconds: 5_000, at: .seconds(12))
        h.tick(at: .milliseconds(17_100))
        let outcome = try #require(h.outcome("late"))
        #expect(outcome.failureCode == BusErrorCode.noWorker)
        #expect(outcome.failureMessage?.contains("2027-01-15T08:00:00Z") == true)
    }

    @Test func theOperatorsCapFailsAWaitingRequestEarlier() throws {
        let h = harness { $0.maxWaitForWorker = .seconds(5) }
        h.ready(w1, actions: ["Echo.say"], at: .seconds(10))
        h.worker(w1, sends: .disconnect, at: .seconds(11))
        h.perform("capped", timeoutMilliseconds: 60_000, at: .seconds(12))
        h.tick(at: .milliseconds(16_900))
        #expect(h.outcome("capped") == nil)
        h.tick(at: .milliseconds(17_100))
        #expect(h.outcome("capped")?.failureCode == BusErrorCode.noWorker)
        #expect(h.outcome("capped")?.failureMessage?.contains("--max-wait-for-worker") == true)
    }

    @Test func anActionIsForgottenAfterTheExpiryAndThenFailsFast() throws {
        let h = harness { $0.forgetActionsAfter = .seconds(60) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        h.wallClock.fixed = start
        h.ready(w1, actions: ["Echo.say"], at: .seconds(10))
        h.worker(w1, sends: .disconnect, at: .seconds(11))
        h.wallClock.fixed = start.addingTimeInterval(61)
        h.tick(at: .seconds(72))
        #expect(h.core.statistics.knownActions == 0 && h.core.statistics.actionsForgotten == 1)
        #expect(h.outbox.journaled.last == .knownActions([:]))
        h.perform("forgotten", timeoutMilliseconds: 60_000, at: .seconds(73))
        h.tick(at: .milliseconds(75_100))
        let outcome = try #require(h.outcome("forgotten"))
        #expect(outcome.failureCode == BusErrorCode.noWorker)
        #expect(outcome.failureMessage?.contains("no worker is registered") == true)
    }

    @Test func aTypoStillFailsFastWithItsSuggestion() throws {
        let h = harness()
        h.ready(w1, actions: ["Echo.say"], at: .seconds(10))
        h.perform("typo", action: "Echo.sya", timeoutMilliseconds: 60_000, at: .seconds(10))
        h.tick(at: .milliseconds(12_100))
        #expect(h.outcome("typo")?.failureMessage?.contains("did you mean Echo.say?") == true)
    }

    @Test func theKnownActionsAreJournaledOnEachChangeAndComeBackAfterARestart() throws {
        let h = harness()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        h.wallClock.fixed = start
        h.ready(w1, actions: ["Echo.say", "Math.fibonacci"], at: .seconds(1))
        #expect(h.outbox.journaledWithoutWorkers.last == .knownActions(["Echo.say": Self.served, "Math.fibonacci": Self.served]))
        h.ready(w2, actions: ["Echo.say"], at: .seconds(2))
        #expect(h.outbox.journaledWithoutWorkers.count == 1, "nothing new is known")
        h.worker(w1, sends: .disconnect, at: .seconds(3))
        #expect(h.outbox.journaledWithoutWorkers.last == .knownActions(["Echo.say": Self.served, "Math.fibonacci": start]))
        let snapshot = h.core.journalSnapshot(now: h.at(.seconds(3)))
        #expect(snapshot.contains(.knownActions(["Echo.say": Self.served, "Math.fibonacci": start])))

        // Restarted with no worker up: both are known, and a request for either waits.
        var recovery = JournalRecovery()
        recovery.knownActions = ["Echo.say": Self.served, "Math.fibonacci": start]
        let restarted = harness()
        restarted.core.restore(recovery, now: restarted.at(.zero))
        restarted.perform("after", action: "Math.fibonacci", timeoutMilliseconds: 60_000, at: .seconds(1))
        restarted.tick(at: .seconds(30))
        #expect(restarted.outcome("after") == nil)
        #expect(restarted.core.statistics.actionsWithoutWorker == 2)
        restarted.ready(w1, actions: ["Math.fibonacci"], at: .seconds(31))
        #expect(restarted.requestIDs(to: w1) == ["after"])
    }

    /// Found by the full-disk test: a worker registering on a coordinator started on a full disk
    /// journaled the known actions, the write failed and the coordinator stopped.
    @Test func belowTheDiskMinimumTheKnownActionsWaitForRoomToBeJournaled() throws {
        let h = harness { $0.minFreeDiskBytes = 1 << 20 }
        h.core.measuredFreeDisk(0)
        h.ready(w1, actions: ["Echo.say"], at: .seconds(1))
        #expect(h.outbox.journaledWithoutWorkers.isEmpty, "nothing but accepted work's outcomes below the minimum")
        #expect(h.core.statistics.knownActions == 1, "known all the same")
        h.core.measuredFreeDisk(2 << 20)
        #expect(h.outbox.journaledWithoutWorkers == [.knownActions(["Echo.say": Self.served])])
    }

    @Test func aKnownActionWithNoWorkerIsReportedWithSinceWhen() throws {
        let h = harness()
        h.wallClock.fixed = Date(timeIntervalSince1970: 1_800_000_000)
        h.ready(w1, actions: ["Echo.say"], at: .seconds(1))
        h.worker(w1, sends: .disconnect, at: .seconds(2))
        h.perform("waiting", timeoutMilliseconds: 60_000, at: .seconds(3))
        h.send(.queues(queryID: "q"), at: .seconds(4))
        guard case .queues(_, let json)? = h.replies.last else { throw KnownActionsReplyMissing() }
        let report = try JSONDecoder().decode(FleetQueuesReport.self, from: Data(json))
        let echo = try #require(report.actions.first { $0.action == "Echo.say" })
        #expect(echo.queued == 1 && echo.workers == 0 && echo.noWorkerSince == "2027-01-15T08:00:00Z")
    }
}

struct KnownActionsReplyMissing: Error {}
