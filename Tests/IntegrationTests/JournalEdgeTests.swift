import ActionBusTestSupport
import Foundation
import Testing

/// What power loss and a full disk leave in a journal, met by a real coordinator.
@Suite("Journal edges", .serialized, .timeLimit(.minutes(2)))
struct JournalEdgeTests {
    @Test func aZeroFilledTailFromPowerLossDoesNotBlockTheStart() throws {
        let bus = try BusFixture()
        let first = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: first)
        let once = try bus.perform("Sequence.next", ["--session", "z", "--idempotency-key", "kept", "--json"])
        #expect(try OutcomeLine.parse(once.stdoutLines).first?.output?["n"]?.number == 1)
        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        // A file system may extend the file before the data lands: zeros after the last record.
        let journal = try FileHandle(forWritingTo: URL(fileURLWithPath: bus.dataDirectory + "/journal.log"))
        try journal.seekToEnd()
        try journal.write(contentsOf: Data(repeating: 0, count: 4096))
        try journal.close()
        let second = try bus.startCoordinator(name: "coordinator-2")
        // The zeros were cut off as a torn end: its record says how many bytes.
        #expect(second.logRecords(withField: "journal.discardedBytes").first?.integer("journal.discardedBytes") ?? 0 >= 4096, "\(second.stderr)")
        let retry = try bus.perform("Sequence.next", ["--session", "z", "--idempotency-key", "kept", "--json"])
        #expect(try OutcomeLine.parse(retry.stdoutLines).first?.output?["n"]?.number == 1, "answered from the journal")
    }

    @Test func aCompactionThatCannotBeWrittenKeepsTheCoordinatorServing() throws {
        let bus = try BusFixture()
        try FileManager.default.createDirectory(atPath: bus.dataDirectory, withIntermediateDirectories: true)
        // The compaction's temporary file lands on a full device.
        try FileManager.default.createSymbolicLink(atPath: bus.dataDirectory + "/journal.log.compacting", withDestinationPath: "/dev/full")
        let coordinator = try bus.startCoordinator(["--journal-compact-bytes", "65536"])
        try bus.startWorker("w1", coordinator: coordinator)
        let load = try bus.perform("Echo.say", ["--input", #"{"text":"fill"}"#, "--count", "600", "--concurrency", "50"])
        #expect(load.process.terminationStatus == 0)
        // A failed compaction logs an error with the failure (`journal.error`).
        let failures = { coordinator.logRecords(withField: "journal.error").filter { $0.level == "error" } }
        try expect(waitUntil { !failures().isEmpty }, "no compaction was tried: \(coordinator.stderr)")
        // The failure removed its temporary file, and the coordinator goes on serving.
        #expect(!FileManager.default.fileExists(atPath: bus.dataDirectory + "/journal.log.compacting"))
        let after = try bus.perform("Echo.say", ["--input", #"{"text":"still"}"#, "--json"])
        #expect(after.process.terminationStatus == 0)
        #expect(failures().count == 1, "retried every batch: \(failures())")
        #expect(coordinator.process.isRunning)
    }
}
