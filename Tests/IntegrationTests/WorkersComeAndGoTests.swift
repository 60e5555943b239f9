import ActionBusTestSupport
import Foundation
import Testing

/// Workers that come and go, as processes: a request for an action the fleet serves waits for a
/// worker within its deadline (a rolling restart, a fleet scaling up from zero, a coordinator
/// restarted before its workers); one for an action never served, or forgotten, fails fast.
@Suite("Workers that come and go", .serialized, .timeLimit(.minutes(5)))
struct WorkersComeAndGoTests {
    /// One action in the queues report (`actionbus queues --json`).
    struct QueuedAction: Decodable {
        let action: String
        let queued: Int
        let workers: Int
        let noWorkerSince: String?
    }

    struct QueuesReport: Decodable {
        let actions: [QueuedAction]
    }

    func queuedAction(_ name: String, on bus: BusFixture) throws -> QueuedAction? {
        try JSONDecoder().decode(QueuesReport.self, from: Data(bus.query("queues").utf8)).actions.first { $0.action == name }
    }

    /// Starts a worker, waits until it registered (the action is then known) and stops it.
    func serveOnceThenStop(_ bus: BusFixture, coordinator: BusProcess) throws {
        let first = try bus.startWorker("first", coordinator: coordinator)
        first.signal(SIGTERM)
        try expect(first.waitForExit(timeout: .seconds(20)) != nil, "the first worker did not stop")
        try expect(waitUntil { (try? bus.statistics()["workers"]) == 0 }, "the first worker is still registered")
    }

    @Test func aRollingRestartOfTheOnlyWorkerFailsNothingAndRunsEachRequestOnce() throws {
        let bus = try BusFixture()
        // A short heartbeat shortens the start-up grace (4 heartbeats), so that the gap below is
        // past it: an action the fleet never served would fail after --no-worker-grace.
        let coordinator = try bus.startCoordinator(["--heartbeat-ms", "100"])
        let before = try bus.startWorker("before", coordinator: coordinator)
        let count = 3_000
        let load = try bus.start("load", [
            "perform", "Clock.sleep", "--input", #"{"ms":5}"#, "--count", "\(count)", "--concurrency", "10",
            "--timeout", "60", "--json", "--coordinator", bus.clients,
        ])
        try expect(waitUntil { (try? bus.statistics()["completed"]) ?? 0 >= 300 }, "the load did not start")
        // The restart: SIGTERM (it drains what it runs), a gap longer than --no-worker-grace, a new process.
        before.signal(SIGTERM)
        try expect(before.waitForExit(timeout: .seconds(20)) != nil, "the worker did not stop")
        // Requests sent during the gap, when no worker is registered (the load's own wait in it,
        // accepted while the worker served them).
        let gapCount = 200
        let gap = try bus.start("gap", [
            "perform", "Echo.say", "--input", #"{"text":"gap"}"#, "--count", "\(gapCount)", "--concurrency", "50",
            "--timeout", "60", "--json", "--coordinator", bus.clients,
        ])
        try expect(waitUntil(timeout: .seconds(10)) { (try? bus.statistics()["queued"]) ?? 0 >= 50 }, "the gap's requests did not wait")
        // Longer than --no-worker-grace (2 s), which an action the fleet never served gets.
        Thread.sleep(forTimeInterval: 3)
        #expect(load.isRunning && gap.isRunning, "a client ended during the gap: \(gap.stdout.suffix(300))")
        let after = try bus.startWorker("after", coordinator: coordinator)
        try expect(load.waitForExit(timeout: .seconds(120)) != nil, "the load did not finish")
        try expect(gap.waitForExit(timeout: .seconds(60)) != nil, "the gap's client did not finish")

        for (client, expected) in [(load, count), (gap, gapCount)] {
            let outcomes = try OutcomeLine.parse(client.stdoutLines)
            #expect(outcomes.count == expected)
            #expect(Set(outcomes.map(\.request)).count == expected, "each outcome delivered once")
            let failures = outcomes.filter { $0.outcome != "success" }
            #expect(failures.isEmpty, "\(client.name): \(failures.count) failed, first: \(String(describing: failures.first?.error))")
        }
        #expect(try LoadTests.actionsRun([before, after]) == count + gapCount, "each request ran once")
    }

    @Test func aBurstForAKnownActionWaitsForWorkersThatStartTenSecondsLater() throws {
        let bus = try BusFixture()
        // 20 clients of 10 000 (a client's window): all 200 000 accepted and journaled at once.
        let clients = 20, perClient = 10_000, count = clients * perClient
        let coordinator = try bus.startCoordinator()
        try serveOnceThenStop(bus, coordinator: coordinator)
        let bursts = try (1...clients).map { index in
            try bus.start("burst-\(index)", [
                "perform", "Echo.say", "--input", #"{"text":"b"}"#, "--count", "\(perClient)", "--concurrency", "\(perClient)",
                "--timeout", "300", "--json", "--coordinator", bus.clients,
            ])
        }
        try expect(waitUntil(timeout: .seconds(150), interval: .milliseconds(500)) { (try? bus.statistics()["accepted"]) ?? 0 >= count },
                   "the burst was not accepted: \(bursts[0].stderr.suffix(500))")
        let report = try #require(try queuedAction("Echo.say", on: bus))
        #expect(report.workers == 0 && report.noWorkerSince != nil && report.queued == count, "\(report)")
        // Workers come 10 s later: a scale-up from zero.
        Thread.sleep(forTimeInterval: 10)
        let workers = try ["w1", "w2"].map {
            try bus.start($0, ["worker", "--examples", "--coordinator", bus.workers, "--name", $0, "--log-format", "json"])
        }
        var outcomes: [OutcomeLine] = []
        for burst in bursts {
            try expect(burst.waitForExit(timeout: .seconds(240)) != nil, "\(burst.name) did not finish")
            outcomes += try OutcomeLine.parse(burst.stdoutLines)
        }
        #expect(outcomes.count == count)
        #expect(Set(outcomes.map(\.request)).count == count, "each outcome delivered once")
        let failed = outcomes.filter { $0.outcome != "success" }
        #expect(failed.isEmpty, "\(failed.count) failed, first: \(String(describing: failed.first?.error))")
        #expect(try LoadTests.actionsRun(workers) == count, "each request ran once")
    }

    @Test func aCoordinatorRestartedWithNoWorkerUpStillKnowsTheActionAndHoldsItsRequests() throws {
        let bus = try BusFixture()
        // A short heartbeat shortens the start-up grace, so a forgotten rule would fail it in about 2.5 s.
        let options = ["--heartbeat-ms", "100"]
        let first = try bus.startCoordinator(options)
        try serveOnceThenStop(bus, coordinator: first)
        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        let restarted = try bus.startCoordinator(options, name: "restarted")
        let report = try #require(try queuedAction("Echo.say", on: bus), "the restarted coordinator does not know Echo.say")
        #expect(report.noWorkerSince != nil)
        let waiting = try bus.start("waiting", ["perform", "Echo.say", "--input", #"{"text":"w"}"#, "--timeout", "60", "--json",
                                                "--coordinator", bus.clients])
        try expect(waitUntil { (try? bus.statistics()["queued"]) == 1 }, "the request was not queued")
        // Well past the start-up grace and --no-worker-grace: still waiting.
        Thread.sleep(forTimeInterval: 5)
        let queuedAfterTheGrace = try bus.statistics()["queued"]
        #expect(waiting.isRunning && queuedAfterTheGrace == 1, "\(waiting.stdout)")
        try bus.startWorker("late", coordinator: restarted, ["--heartbeat-ms", "100"])
        try expect(waiting.waitForExit(timeout: .seconds(30)) != nil, "the request was not answered")
        #expect(try OutcomeLine.parse(waiting.stdoutLines).first?.outcome == "success", "\(waiting.stdout) \(waiting.stderr)")
    }

    @Test func anActionForgottenAfterTheExpiryFailsFast() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--forget-actions-after", "1s", "--no-worker-grace", "1", "--heartbeat-ms", "100"])
        try serveOnceThenStop(bus, coordinator: coordinator)
        try expect(waitUntil { (try? bus.statistics()["knownActions"]) == 0 }, "the actions were not forgotten")
        #expect(try bus.statistics()["actionsForgotten"] ?? 0 > 0)
        // It must answer well before its 60 s deadline: within the perform's 30 s.
        let perform = try bus.perform("Echo.say", ["--input", #"{"text":"f"}"#, "--timeout", "60", "--json"], timeout: .seconds(30))
        let outcome = try #require(try OutcomeLine.parse(perform.stdoutLines).first, "\(perform.stderr)")
        #expect(outcome.error?.code == "noWorker")
    }
}
