import Foundation
import Testing

/// SIGTERM on a worker: it takes no new work, finishes what it runs, then leaves. SIGTERM on the
/// coordinator: it stops reading, flushes its journal and exits 0.
@Suite("Graceful shutdown", .serialized, .timeLimit(.minutes(2)))
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
        try expect(waitUntil { coordinator.stderr.contains("worker.name=w1 [ActionCoordinator] worker left") },
                   "the coordinator did not see w1 leave: \(coordinator.stderr)")
    }

    @Test func terminatedCoordinatorFlushesItsJournalAndItsSuccessorAnswersRetries() throws {
        let bus = try BusFixture()
        let first = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: first, ["--heartbeat-ms", "200"])
        let once = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "k1", "--json"])
        #expect(try OutcomeLine.parse(once.stdoutLines).first?.output?["n"]?.number == 1)

        first.signal(SIGTERM)
        #expect(first.waitForExit(timeout: .seconds(10)) == 0, "\(first.stderr)")
        #expect(first.stderr.contains("journal flushed and closed"))

        let second = try bus.startCoordinator(name: "coordinator-2")
        #expect(second.stderr.contains("journal.finished=1 "))
        // A retry is answered from the journal, not run again; new work runs.
        let retry = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "k1", "--json"])
        #expect(try OutcomeLine.parse(retry.stdoutLines).first?.output?["n"]?.number == 1)
        let fresh = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "k2", "--json"])
        #expect(try OutcomeLine.parse(fresh.stdoutLines).first?.output?["n"]?.number == 2)
    }

    @Test func aCompactedJournalStillAnswersRetriesAfterAKill() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200", "--journal-compact-bytes", "65536"]
        let first = try bus.startCoordinator(fast)
        try bus.startWorker("w1", coordinator: first, ["--heartbeat-ms", "200"])
        let once = try bus.perform("Sequence.next", ["--session", "c", "--idempotency-key", "kept", "--json"])
        #expect(try OutcomeLine.parse(once.stdoutLines).first?.output?["n"]?.number == 1)
        // About 300 bytes of journal per request: several compactions.
        let load = try bus.perform("Echo.say", ["--input", #"{"text":"fill"}"#, "--count", "1500", "--concurrency", "100"])
        #expect(load.process.terminationStatus == 0)
        try expect(waitUntil { first.stderr.contains("journal compacted") }, "the journal never compacted: \(first.stderr)")
        // Each compaction dropped the acceptances of finished requests.
        let compactions = first.stderr.split(separator: "\n").filter { $0.contains("journal compacted") }.map { line in
            let field = { (name: String) in Int(line.split(separator: " ").first { $0.hasPrefix("journal.\(name)=") }?.split(separator: "=").last ?? "") }
            return (before: field("bytesBefore") ?? 0, after: field("bytesAfter") ?? .max)
        }
        #expect(!compactions.isEmpty && compactions.allSatisfy { $0.after < $0.before }, "\(compactions)")

        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        let second = try bus.startCoordinator(fast, name: "coordinator-2")
        // Outcomes their clients acknowledged under generated ids are gone (nobody can ask for
        // them again); the idempotency key's outcome is kept.
        let finished = second.stderr.split(separator: " ").first { $0.hasPrefix("journal.finished=") }
            .flatMap { Int($0.split(separator: "=")[1]) }
        #expect((finished ?? 0) >= 1 && (finished ?? .max) < 1501, "\(second.stderr)")
        let retry = try bus.perform("Sequence.next", ["--session", "c", "--idempotency-key", "kept", "--json"])
        #expect(try OutcomeLine.parse(retry.stdoutLines).first?.output?["n"]?.number == 1, "answered from the compacted journal")
    }

    @Test func aCoordinatorWithoutJournalSaysSo() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        #expect(coordinator.stderr.contains("the journal is off (--no-journal)"))
        #expect(!coordinator.stderr.contains("journal opened"))
        #expect(!FileManager.default.fileExists(atPath: bus.dataDirectory))
    }

    @Test func twoCoordinatorsCannotShareADataDirectory() throws {
        let bus = try BusFixture()
        try bus.startCoordinator()
        let other = try bus.start("intruder", ["coordinator", "--clients", "tcp://127.0.0.1:0", "--workers", "tcp://127.0.0.1:0",
                                               "--outcomes", "tcp://127.0.0.1:0", "--data-dir", bus.dataDirectory])
        #expect(other.waitForExit(timeout: .seconds(10)) == 1)
        #expect(other.stderr.contains("is in use by another coordinator"), "\(other.stderr)")
    }
}
