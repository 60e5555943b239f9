import ActionBusTestSupport
import Foundation
import Testing

/// Requests running on workers when their coordinator dies run once: the restarted
/// coordinator holds what it takes back from its journal until the workers register again,
/// and each worker's READY names what it runs, which is adopted there.
@Suite("Adoption of running requests", .serialized, .timeLimit(.minutes(3)))
struct AdoptionTests {
    @Test func requestsRunningWhenTheCoordinatorIsKilledRunOnceOnTheirWorkers() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let first = try bus.startCoordinator(fast)
        let workers = try ["w1", "w2"].map { try bus.startWorker($0, coordinator: first, fast + ["--credits", "8"]) }
        let count = 16
        // Every request runs for 3 s on one of the two workers' 16 credits: all of them are
        // running when the coordinator dies.
        let load = try bus.start("load", ["perform", "Clock.sleep", "--input", #"{"ms":3000}"#, "--count", "\(count)",
                                          "--concurrency", "\(count)", "--timeout", "60", "--json", "--coordinator", bus.clients])
        try expect(waitUntil(interval: .milliseconds(50)) { (try? bus.statistics()["running"]) == count }, "the requests did not all start")
        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        let second = try bus.startCoordinator(fast, name: "coordinator-2")

        #expect(load.waitForExit(timeout: .seconds(60)) == 0, "\(load.stderr.suffix(2000))")
        let outcomes = try OutcomeLine.parse(load.stdoutLines)
        #expect(outcomes.count == count && outcomes.allSatisfy { $0.outcome == "success" })
        let statistics = try bus.statistics()
        #expect(statistics["adoptedRunning"] == count, "each was adopted where it ran: \(statistics) \(second.stderr.suffix(2000))")
        #expect(try LoadTests.actionsRun(workers) == count, "each ran once")
    }

    /// A worker keeps a result only until its coordinator says what the worker sent before a
    /// heartbeat mark is durable: a coordinator restarted on the journal is sent again what came
    /// after the last answered mark, not every result of the resend window.
    @Test func aRestartedCoordinatorIsSentAgainOnlyWhatWasNotYetDurable() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "100"]
        let first = try bus.startCoordinator(fast)
        try bus.startWorker("w1", coordinator: first, fast)
        let count = 300
        let load = try bus.start("load", ["perform", "Echo.say", "--input", #"{"text":"x"}"#, "--count", "\(count)",
                                          "--concurrency", "1", "--timeout", "30", "--json", "--coordinator", bus.clients])
        #expect(load.waitForExit(timeout: .seconds(60)) == 0, "\(load.stderr.suffix(2000))")
        // Marks the worker sent after its last result, answered.
        let answered = try bus.statistics()["resultsTakenAnswers"] ?? 0
        try expect(waitUntil(interval: .milliseconds(50)) { (try? bus.statistics()["resultsTakenAnswers"]) ?? 0 >= answered + 3 },
                   "no heartbeat marks answered: \(String(describing: try? bus.statistics()))")
        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        try bus.startCoordinator(fast, name: "coordinator-2")
        // A request served after the worker registered again: its RESULT followed the RESENTs.
        let after = try bus.start("after", ["perform", "Echo.say", "--input", #"{"text":"after"}"#, "--timeout", "30",
                                            "--json", "--coordinator", bus.clients])
        #expect(after.waitForExit(timeout: .seconds(40)) == 0, "\(after.stderr.suffix(2000))")
        let resent = try bus.statistics()["resentResults"] ?? -1
        #expect(resent >= 0 && resent < count / 10, "\(resent) of \(count) results were sent again")
    }
}
