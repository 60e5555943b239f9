import Foundation
import Testing

/// Workers dying under load: nothing accepted is lost, and a request that kills every worker it
/// reaches stops after `--max-deliveries`.
@Suite("Fault tolerance", .serialized, .timeLimit(.minutes(3)))
struct FaultTests {
    @Test func killingAWorkerUnderLoadLosesNothing() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let coordinator = try bus.startCoordinator(fast)
        let doomed = try bus.startWorker("w1", coordinator: coordinator, fast + ["--log-level", "debug"])
        try bus.startWorker("w2", coordinator: coordinator, fast)
        let load = try bus.start("load", ["perform", "Clock.sleep", "--input", #"{"ms":5}"#, "--count", "5000",
                                          "--concurrency", "500", "--json", "--coordinator", bus.clients])
        try expect(waitUntil { doomed.stderr.components(separatedBy: "request started").count > 300 },
                   "w1 did not take a share of the load")
        doomed.signal(SIGKILL)

        #expect(load.waitForExit(timeout: .seconds(120)) == 0, "\(load.stderr)")
        let outcomes = try OutcomeLine.parse(load.stdoutLines)
        #expect(outcomes.count == 5000)
        #expect(Set(outcomes.map(\.request)).count == 5000, "each request reported once")
        #expect(outcomes.allSatisfy { $0.outcome == "success" })
        #expect(coordinator.stderr.contains("worker.name=w1 worker.reason="))
    }

    @Test func aRequestThatCrashesWorkersEndsPoisoned() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let coordinator = try bus.startCoordinator(fast + ["--max-deliveries", "3"])
        for name in ["w1", "w2", "w3", "w4"] {
            try bus.startWorker(name, coordinator: coordinator, fast)
        }
        let crash = try bus.perform("Fault.crash", ["--timeout", "30", "--json"], timeout: .seconds(60))
        #expect(crash.process.terminationStatus == 1, "\(crash.stderr)")
        let outcome = try OutcomeLine.parse(crash.stdoutLines).first
        #expect(outcome?.error?.code == "poisoned")
        #expect(coordinator.stderr.components(separatedBy: "worker lost").count - 1 == 3)

        // The surviving worker keeps serving everything else.
        let rest = try bus.perform("Echo.say", ["--input", #"{"text":"on"}"#, "--count", "100", "--concurrency", "10", "--json"])
        #expect(rest.process.terminationStatus == 0, "\(rest.stderr)")
        #expect(try OutcomeLine.parse(rest.stdoutLines).count == 100)
    }

    @Test func aStoppedWorkersRequestsCompleteElsewhereAndItsLateOutcomesAreDiscarded() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let coordinator = try bus.startCoordinator(fast)
        let frozen = try bus.startWorker("w1", coordinator: coordinator, fast + ["--log-level", "debug"])
        let sleeps = try bus.start("sleeps", ["perform", "Clock.sleep", "--input", #"{"ms":1000}"#, "--count", "4",
                                              "--concurrency", "4", "--json", "--coordinator", bus.clients])
        try expect(waitUntil { frozen.stderr.components(separatedBy: "request started").count - 1 == 4 },
                   "w1 did not start the requests")
        try bus.startWorker("w2", coordinator: coordinator, fast)
        frozen.signal(SIGSTOP)
        defer { frozen.signal(SIGCONT) }

        #expect(sleeps.waitForExit(timeout: .seconds(30)) == 0, "\(sleeps.stderr)")
        let outcomes = try OutcomeLine.parse(sleeps.stdoutLines)
        #expect(outcomes.count == 4)
        #expect(outcomes.allSatisfy { $0.outcome == "success" && $0.worker == "w2" })
        #expect(coordinator.stderr.contains("worker.name=w1 worker.reason=heartbeats stopped"))

        // Resumed, w1 finishes its copies; their outcomes are discarded and it registers afresh.
        frozen.signal(SIGCONT)
        try expect(waitUntil { coordinator.stderr.components(separatedBy: "worker.name=w1 [ActionCoordinator] worker registered").count - 1 >= 2 },
                   "w1 did not register again: \(frozen.stderr) COORDINATOR: \(coordinator.stderr)")
        #expect(sleeps.stdoutLines.count == 4, "the client saw each request once")
    }

    @Test func killingTheCoordinatorLosesNothingAccepted() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let first = try bus.startCoordinator(fast)
        let worker = try bus.startWorker("w1", coordinator: first, fast + ["--credits", "16", "--log-level", "debug"])
        let load = try bus.start("load", ["perform", "Clock.sleep", "--input", #"{"ms":20}"#, "--count", "2000",
                                          "--concurrency", "2000", "--timeout", "120", "--json", "--coordinator", bus.clients])
        try expect(waitUntil { worker.stderr.components(separatedBy: "request started").count > 200 },
                   "w1 did not start serving: \(worker.stderr)")
        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        let answeredBeforeKill = load.stdoutLines.count
        #expect(answeredBeforeKill < 1500, "the kill came too late to test anything (\(answeredBeforeKill) answered)")

        let second = try bus.startCoordinator(fast, name: "coordinator-2")
        #expect(second.stderr.contains("journal opened"))
        #expect(!second.stderr.contains("journal.unfinished=0 "), "the journal held no unfinished work: \(second.stderr)")

        #expect(load.waitForExit(timeout: .seconds(120)) == 0, "\(load.stderr)")
        let outcomes = try OutcomeLine.parse(load.stdoutLines)
        #expect(outcomes.count == 2000)
        #expect(Set(outcomes.map(\.request)).count == 2000, "each request reported once")
        #expect(outcomes.allSatisfy { $0.outcome == "success" }, "\(outcomes.first { $0.outcome != "success" }.map { "\($0)" } ?? "")")
    }

    @Test func aCoordinatorWhoseJournalCannotBeWrittenStopsAndItsSuccessorFinishesTheWork() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        // A disk that fills up: writes past 64 KiB fail with EFBIG (SIGXFSZ ignored, so the
        // write returns the error instead of killing the process).
        let doomed = try bus.startCoordinator(fast, shellPrefix: "ulimit -f 64; trap '' XFSZ")
        let worker = try bus.startWorker("w1", coordinator: doomed, fast)
        let load = try bus.start("load", ["perform", "Echo.say", "--input", #"{"text":"durable"}"#, "--count", "600",
                                          "--concurrency", "50", "--timeout", "60", "--json", "--log-level", "info",
                                          "--coordinator", bus.clients])
        #expect(doomed.waitForExit(timeout: .seconds(60)) == 1, "the coordinator kept going: \(doomed.stderr.suffix(2000))")
        #expect(doomed.stderr.contains("journal write failed; stopping so that nothing unrecorded is acknowledged"))
        #expect(load.stdoutLines.count < 600, "the disk filled too late to test anything")

        let successor = try bus.startCoordinator(fast, name: "coordinator-2")
        #expect(load.waitForExit(timeout: .seconds(120)) == 0,
                "client: \(load.stderr.suffix(2000)) coordinator: \(successor.stderr.suffix(3000)) worker: \(worker.stderr.suffix(2000))")
        let outcomes = try OutcomeLine.parse(load.stdoutLines)
        #expect(outcomes.count == 600)
        #expect(Set(outcomes.map(\.request)).count == 600, "each request reported once")
        #expect(outcomes.allSatisfy { $0.outcome == "success" })
    }

    @Test func aStalledSubscriberNeitherSlowsRequestsNorGoesUnnoticed() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--outcome-hwm", "100"])
        try bus.startWorker("w1", coordinator: coordinator)
        let stalled = try bus.start("stalled", ["subscribe", "--feature", "Echo", "--outcomes", bus.outcomes])
        let watching = try bus.start("watching", ["subscribe", "--feature", "Echo", "--outcomes", bus.outcomes])
        try expect(waitUntil { stalled.stderr.contains("subscribed to") && watching.stderr.contains("subscribed to") },
                   "the subscribers did not subscribe: \(stalled.stderr) \(watching.stderr)")
        stalled.signal(SIGSTOP)
        defer { stalled.signal(SIGCONT) }

        // Outcomes of 4 KB each: far more than the stalled subscriber's socket buffers hold.
        let text = String(repeating: "x", count: 4000)
        let load = try bus.perform("Echo.say", ["--input", #"{"text":"\#(text)"}"#, "--count", "10000", "--concurrency", "200",
                                                "--timeout", "60"], timeout: .seconds(120))
        #expect(load.process.terminationStatus == 0, "\(load.stderr)")
        #expect(load.stdoutLines.count == 10000)
        try expect(waitUntil { coordinator.stderr.contains("outcome stream overflowed for a slow subscriber; it misses outcomes until it catches up") },
                   "no drop was counted: \(coordinator.stderr)")
        let stats = try bus.start("stats", ["stats", "--json", "--coordinator", bus.clients])
        #expect(stats.waitForExit() == 0, "\(stats.stderr)")
        let counters = try JSONDecoder().decode([String: Int].self, from: Data(stats.stdout.utf8))
        #expect((counters["streamOverflows"] ?? 0) >= 1)
        #expect(counters["completed"] == 10_000)

        // The other subscriber is still served, and the stalled one, resumed, reports its gap.
        let marker = try bus.perform("Echo.say", ["--input", #"{"text":"after-the-flood"}"#])
        #expect(marker.process.terminationStatus == 0)
        try expect(waitUntil { watching.stdout.contains("after-the-flood") }, "the reading subscriber missed the last outcome")
        stalled.signal(SIGCONT)
        // Outcomes published while its queue was full are gone; once it has drained the queue,
        // the next outcome it gets shows the gap.
        var caughtUp = false
        for attempt in 1...30 where !caughtUp {
            _ = try bus.perform("Echo.say", ["--input", #"{"text":"resumed-\#(attempt)"}"#])
            caughtUp = waitUntil(timeout: .seconds(2)) { stalled.stdout.contains("resumed-") }
        }
        try expect(caughtUp, "the resumed subscriber did not catch up")
        #expect(stalled.stderr.contains("gap: "), "the resumed subscriber reported no gap: \(stalled.stderr.prefix(500))")
    }
}
