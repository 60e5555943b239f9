import ActionBusTestSupport
import Foundation
import Testing

/// Load behaviour as processes: a burst far larger than the workers' credits, no worker at the
/// start, must not collapse into resends. Counts are asserted, never times (figures live in
/// benchmarks).
@Suite("Load", .serialized, .timeLimit(.minutes(3)))
struct LoadTests {
    /// Every request of `load` succeeded, each reported once, and ran once but for those whose
    /// run was not yet recorded when their coordinator died (held by the worker, or finished in
    /// the last commits): at most a few times the worker's credits more. Returns their ids.
    @discardableResult
    static func expectEachSucceededOnce(_ load: BusProcess, count: Int, worker: BusProcess, credits: Int = 16) throws -> [String] {
        #expect(load.waitForExit(timeout: .seconds(120)) == 0, "\(load.stderr.suffix(2000))")
        let outcomes = try OutcomeLine.parse(load.stdoutLines)
        #expect(outcomes.count == count)
        #expect(Set(outcomes.map(\.request)).count == count, "each request reported once")
        #expect(outcomes.allSatisfy { $0.outcome == "success" }, "\(outcomes.first { $0.outcome != "success" }.map { "\($0)" } ?? "")")
        let ran = try LoadTests.actionsRun([worker])
        #expect(ran >= count && ran <= count + 4 * credits, "ran \(ran) for \(count) requests")
        return outcomes.map(\.request)
    }

    /// How many actions the workers ran, from the `worker.completed` field of the summary each
    /// logs (as JSON) when it stops.
    static func actionsRun(_ workers: [BusProcess]) throws -> Int {
        var total = 0
        for worker in workers {
            worker.signal(SIGTERM)
            try expect(worker.waitForExit(timeout: .seconds(20)) != nil, "\(worker.name) did not stop")
            guard let completed = worker.logRecords(withField: "worker.completed").last?.integer("worker.completed") else {
                throw FixtureError(description: "\(worker.name) logged no final count: \(worker.stderr.suffix(500))")
            }
            total += completed
        }
        return total
    }

    @Test(arguments: [false, true])
    func aBurstWithNoWorkerRunsEachActionOnceAndDeliversEachOutcomeOnce(journal: Bool) throws {
        let bus = try BusFixture()
        let count = 20_000
        try bus.startCoordinator(["--no-worker-grace", "120"] + (journal ? [] : ["--no-journal"]))
        let perform = try bus.start("burst", [
            "perform", "Echo.say", "--input", #"{"text":"q"}"#, "--count", "\(count)", "--concurrency", "\(count)",
            "--timeout", "120", "--json", "--coordinator", bus.clients,
        ])
        // The client's window is full and the rest waits in it; then the workers come.
        try expect(waitUntil(interval: .milliseconds(200)) { (try? bus.statistics()["queued"]) ?? 0 >= 5_000 }, "the burst was not queued")
        let workers = try ["w1", "w2"].map {
            try bus.start($0, ["worker", "--examples", "--fault-injection", "--coordinator", bus.workers, "--name", $0, "--log-format", "json"])
        }
        try expect(perform.waitForExit(timeout: .seconds(150)) != nil, "the burst did not finish")
        #expect(perform.process.terminationStatus == 0, "\(perform.stderr.suffix(500))")

        let outcomes = try OutcomeLine.parse(perform.stdoutLines)
        #expect(outcomes.count == count)
        #expect(Set(outcomes.map(\.request)).count == count, "each outcome delivered once")
        #expect(outcomes.allSatisfy { $0.outcome == "success" })
        let stats = try bus.statistics()
        #expect(stats["accepted"] == count, "\(stats)")
        #expect(stats["duplicates"] == 0, "no resend while the coordinator answers: \(stats)")
        #expect(stats["undeliverableReplies"] == 0, "\(stats)")
        #expect(try Self.actionsRun(workers) == count, "each action ran once")
    }

    @Test func tenClientsAtOnceAreEachAnsweredOnce() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        let workers = try ["w1", "w2"].map { try bus.startWorker($0, coordinator: coordinator) }
        let clients = try (1...10).map { index in
            try bus.start("client-\(index)", [
                "perform", "Echo.say", "--input", #"{"text":"c\#(index)"}"#, "--count", "2000", "--concurrency", "2000",
                "--json", "--coordinator", bus.clients,
            ])
        }
        var delivered: [String] = []
        for client in clients {
            try expect(client.waitForExit(timeout: .seconds(120)) != nil, "\(client.name) did not finish")
            #expect(client.process.terminationStatus == 0, "\(client.stderr.suffix(300))")
            delivered += try OutcomeLine.parse(client.stdoutLines).map(\.request)
        }
        #expect(delivered.count == 20_000)
        #expect(Set(delivered).count == 20_000)
        let stats = try bus.statistics()
        #expect(stats["duplicates"] == 0 && stats["undeliverableReplies"] == 0, "\(stats)")
        #expect(try Self.actionsRun(workers) == 20_000)
    }

    @Test func anActionNobodyServesFailsFastWithASuggestion() throws {
        let bus = try BusFixture()
        // A short heartbeat shortens the start-up grace (workers finding a restarted coordinator).
        let coordinator = try bus.startCoordinator(["--no-journal", "--heartbeat-ms", "100", "--no-worker-grace", "1"])
        try bus.startWorker("w1", coordinator: coordinator, ["--heartbeat-ms", "100"])
        // Well within the request's 60 s: noWorker comes from the grace, not the deadline.
        let perform = try bus.perform("Echo.sya", ["--timeout", "60", "--json"], timeout: .seconds(30))
        #expect(perform.process.terminationStatus == 1)
        let outcome = try OutcomeLine.parse(perform.stdoutLines).first
        #expect(outcome?.error?.code == "noWorker", "\(perform.stdout) \(perform.stderr)")
        #expect(outcome?.error?.message.contains("did you mean Echo.say?") == true, "\(String(describing: outcome?.error))")
        #expect(outcome?.error?.message.contains("workers serve") == true)
    }
}

/// The bounds a coordinator puts on what one client may ask of it.
@Suite("Client bounds", .serialized, .timeLimit(.minutes(2)))
struct ClientBoundsTests {
    @Test func oneClientCannotParkTheQueueFullAndTimeoutsAreCut() throws {
        let bus = try BusFixture()
        try bus.startCoordinator(["--no-journal", "--max-queued-per-client", "100", "--max-timeout", "2", "--no-worker-grace", "60"])
        // No worker: 150 requests from one client, its share 100.
        let greedy = try bus.perform("Echo.say", ["--input", #"{"text":"x"}"#, "--count", "150", "--concurrency", "150",
                                                  "--timeout", "60", "--json"], timeout: .seconds(30))
        let outcomes = try OutcomeLine.parse(greedy.stdoutLines)
        #expect(outcomes.count == 150)
        #expect(outcomes.filter { $0.error?.code == "overloaded" }.count == 50, "\(greedy.stdout.prefix(600))")
        // The other 100 asked for 60 s and were given 2: at that deadline, still queued with no
        // worker registered, each fails noWorker (the 60 s grace would come far too late for
        // this perform's 30 s, and the client's own timer, later than the coordinator's, never
        // fires first).
        #expect(outcomes.filter { $0.error?.code == "noWorker" }.count == 100, "\(greedy.stdout.prefix(600))")
        // Another client still gets in: queued, not refused as overloaded, until its deadline.
        let other = try bus.perform("Echo.say", ["--input", #"{"text":"y"}"#, "--timeout", "1", "--json"], timeout: .seconds(30))
        let answer = try #require(try OutcomeLine.parse(other.stdoutLines).first, "\(other.stderr)")
        #expect(answer.error?.code == "noWorker", "\(other.stdout)")
    }

    @Test func aSessionStaysOnItsWorkerWhileItsRequestRunsPastTheIdleTimeout() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal", "--session-idle-seconds", "1"])
        try bus.startWorker("w1", coordinator: coordinator)
        try bus.startWorker("w2", coordinator: coordinator)
        let long = try bus.start("long", ["perform", "Clock.sleep", "--input", #"{"ms":3000}"#, "--session", "busy", "--json",
                                          "--coordinator", bus.clients])
        try expect(waitUntil(interval: .milliseconds(200)) { (try? bus.statistics()["running"]) == 1 }, "the long request did not start")
        // Idle (nothing sent or answered) for more than the timeout while it runs.
        Thread.sleep(forTimeInterval: 2)
        #expect(try bus.statistics()["sessions"] == 1, "the busy session was unpinned")
        let next = try bus.perform("Sequence.next", ["--session", "busy", "--json"], timeout: .seconds(30))
        try expect(long.waitForExit(timeout: .seconds(30)) != nil, "the long request did not finish")
        let host = try OutcomeLine.parse(long.stdoutLines).first?.worker
        #expect(host != nil)
        #expect(try OutcomeLine.parse(next.stdoutLines).first?.worker == host, "the session's next request ran elsewhere")
    }
}
