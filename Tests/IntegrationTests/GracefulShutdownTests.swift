import Foundation
import Testing

/// SIGTERM on a worker: it takes no new work, finishes what it runs, then leaves.
@Suite("Graceful worker shutdown", .serialized, .timeLimit(.minutes(2)))
struct GracefulShutdownTests {
    @Test func terminatedWorkerFinishesItsRequestsAndNewWorkGoesElsewhere() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        let leaving = try bus.startWorker("w1", coordinator: coordinator, ["--log-level", "debug", "--grace-seconds", "20"])
        let sleeps = try bus.start("sleeps", ["perform", "Clock.sleep", "--input", #"{"ms":1500}"#, "--count", "4",
                                              "--concurrency", "4", "--json", "--coordinator", bus.clients])
        try expect(waitUntil { leaving.stderr.components(separatedBy: "request started").count - 1 == 4 },
                   "the worker did not start the 4 requests: \(leaving.stderr)")
        try bus.startWorker("w2", coordinator: coordinator)
        leaving.signal(SIGTERM)
        try expect(waitUntil { coordinator.stderr.contains("worker draining") }, "the coordinator was not told")

        // New work goes to the other worker while w1 drains.
        let during = try bus.perform("Echo.say", ["--input", #"{"text":"new"}"#, "--json"])
        #expect(try OutcomeLine.parse(during.stdoutLines).first?.worker == "w2")

        #expect(sleeps.waitForExit() == 0, "\(sleeps.stderr)")
        let finished = try OutcomeLine.parse(sleeps.stdoutLines)
        #expect(finished.count == 4)
        #expect(finished.allSatisfy { $0.outcome == "success" && $0.worker == "w1" }, "finished where they started, not redelivered")
        #expect(leaving.waitForExit(timeout: .seconds(20)) == 0)
        #expect(coordinator.stderr.contains("worker.name=w1 [ActionCoordinator] worker left"))
    }
}
