import ActionBusTestSupport
import Foundation
import Testing

/// SIGTERM on a worker: it takes no new work, finishes what it runs, then leaves. SIGTERM on the
/// coordinator: it stops reading, flushes its journal and exits 0.
@Suite("Graceful shutdown", .serialized, .timeLimit(.minutes(2)))
struct GracefulShutdownTests {
    @Test func terminatedWorkerFinishesItsRequestsAndNewWorkGoesElsewhere() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        let leaving = try bus.startWorker("w1", coordinator: coordinator, ["--grace-seconds", "20"])
        let sleeps = try bus.start("sleeps", ["perform", "Clock.sleep", "--input", #"{"ms":3000}"#, "--count", "4",
                                              "--concurrency", "4", "--json", "--coordinator", bus.clients])
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.listedWorker("w1"))?.inFlight == 4 },
                   "the worker did not start the 4 requests: \(leaving.stderr)")
        try bus.startWorker("w2", coordinator: coordinator)
        leaving.signal(SIGTERM)
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.listedWorker("w1"))?.draining == true },
                   "the coordinator was not told: \(String(describing: try? bus.listedWorkers()))")

        // New work goes to the other worker while w1 drains.
        let during = try bus.perform("Echo.say", ["--input", #"{"text":"new"}"#, "--json"])
        #expect(try OutcomeLine.parse(during.stdoutLines).first?.worker == "w2")

        #expect(sleeps.waitForExit() == 0, "\(sleeps.stderr)")
        let finished = try OutcomeLine.parse(sleeps.stdoutLines)
        #expect(finished.count == 4)
        #expect(finished.allSatisfy { $0.outcome == "success" && $0.worker == "w1" }, "finished where they started, not redelivered")
        #expect(leaving.waitForExit(timeout: .seconds(20)) == 0)
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.listedWorkers().map(\.name)) == ["w2"] },
                   "the coordinator did not see w1 leave: \(String(describing: try? bus.listedWorkers()))")
        let stats = try bus.statistics()
        #expect(stats["workersExpired"] == 0 && stats["redelivered"] == 0, "w1 left; it was not lost: \(stats)")
    }

    @Test func terminatedCoordinatorFlushesItsJournalAndItsSuccessorAnswersRetries() throws {
        let bus = try BusFixture()
        let first = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: first, ["--heartbeat-ms", "200"])
        let once = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "k1", "--json"])
        #expect(try OutcomeLine.parse(once.stdoutLines).first?.output?["n"]?.number == 1)

        first.signal(SIGTERM)
        #expect(first.waitForExit(timeout: .seconds(10)) == 0, "\(first.stderr)")

        // The successor finds the finished request in the journal.
        let second = try bus.startCoordinator(name: "coordinator-2")
        #expect(second.logRecords(withField: "journal.finished").first?.integer("journal.finished") == 1, "\(second.stderr)")
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
        // Each compaction (a log record with the file's sizes) dropped the acceptances of
        // finished requests.
        try expect(waitUntil { !first.logRecords(withField: "journal.bytesAfter").isEmpty }, "the journal never compacted: \(first.stderr)")
        let compactions = first.logRecords(withField: "journal.bytesAfter").map { record in
            (before: record.integer("journal.bytesBefore") ?? 0, after: record.integer("journal.bytesAfter") ?? .max)
        }
        #expect(!compactions.isEmpty && compactions.allSatisfy { $0.after < $0.before }, "\(compactions)")

        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        let second = try bus.startCoordinator(fast, name: "coordinator-2")
        // Outcomes their clients acknowledged under generated ids are gone (nobody can ask for
        // them again); the idempotency key's outcome is kept.
        let finished = second.logRecords(withField: "journal.finished").first?.integer("journal.finished")
        #expect((finished ?? 0) >= 1 && (finished ?? .max) < 1501, "\(second.stderr)")
        let retry = try bus.perform("Sequence.next", ["--session", "c", "--idempotency-key", "kept", "--json"])
        #expect(try OutcomeLine.parse(retry.stdoutLines).first?.output?["n"]?.number == 1, "answered from the compacted journal")
    }

    @Test func aCoordinatorWithoutJournalSaysSo() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        #expect(coordinator.logRecords(withField: "endpoint.clients").first?.fields["journal"] == "off", "\(coordinator.stderr)")
        #expect(coordinator.logRecords(withField: "journal.directory").isEmpty, "no journal was opened")
        #expect(!FileManager.default.fileExists(atPath: bus.dataDirectory))
    }

    @Test func twoCoordinatorsCannotShareADataDirectory() throws {
        let bus = try BusFixture()
        let owner = try bus.startCoordinator()
        let other = try bus.start("intruder", ["coordinator", "--clients", "tcp://127.0.0.1:0", "--workers", "tcp://127.0.0.1:0",
                                               "--outcomes", "tcp://127.0.0.1:0", "--data-dir", bus.dataDirectory, "--log-format", "json"])
        #expect(other.waitForExit(timeout: .seconds(10)) == 1, "\(other.stderr)")
        #expect(other.logRecords(withField: "endpoint.clients").isEmpty, "it never listened")
        // The first keeps its journal and goes on serving.
        #expect(owner.process.isRunning)
        #expect(try bus.statistics()["accepted"] == 0)
    }
}
