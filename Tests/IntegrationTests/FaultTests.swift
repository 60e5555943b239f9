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
}
