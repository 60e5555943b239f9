import ActionBusTestSupport
import Foundation
import Testing

/// A journal on a file system that fills: the coordinator refuses new requests `storageFull`,
/// finishes what it accepted, never exits, and accepts again once space returns; and a client
/// whose coordinator went away is told so. The disk is a tmpfs of 4 MiB mounted for the test.
@Suite("Disk watermark", .serialized, .timeLimit(.minutes(3)))
struct DiskWatermarkTests {
    static let tmpfs = SmallFileSystem.canMount || SmallFileSystem.isRequired

    /// The coordinator's options for a journal on `disk`, with a minimum of 1 MiB free.
    static func journalOptions(on disk: SmallFileSystem) -> [String] {
        ["--data-dir", disk.path + "/data", "--min-free-disk", "1MiB"]
    }

    /// Runs `body` with a fixture and a 4 MiB tmpfs; then kills the processes and unmounts it.
    static func onSmallDisk(_ body: (BusFixture, SmallFileSystem) throws -> Void) throws {
        let bus = try BusFixture()
        let disk = try SmallFileSystem(at: bus.directory.appendingPathComponent("disk"), bytes: 4 << 20)
        defer {
            bus.stopAll()
            disk.unmount()
        }
        try body(bus, disk)
    }

    @Test(.enabled(if: tmpfs, "mounting a tmpfs needs root on Linux (ACTIONBUS_REQUIRE_TMPFS=1 makes it a failure)"))
    func underLoadNewRequestsAreRefusedAcceptedOnesFinishOnceAndFreedSpaceLetsThemIn() throws {
        try Self.onSmallDisk { bus, disk in
            // 2 MiB left: the journal has about 1 MiB above the minimum before it crosses it.
            try disk.fill(leaving: 2 << 20)
            let coordinator = try bus.startCoordinator(Self.journalOptions(on: disk))
            try bus.startWorker("w1", coordinator: coordinator)
            let subscriber = try bus.startSubscriber("stream", ["--json"])
            // Requests of 1 KB with outputs as large, under idempotency keys: their outcomes are
            // kept for retries, so compaction cannot shrink the journal back below the minimum.
            let count = 3_000
            let input = #"{"text":"\#(String(repeating: "x", count: 1_000))"}"#
            let load = try bus.perform("Echo.say", ["--input", input, "--count", "\(count)", "--concurrency", "200", "--json", "--timeout", "60",
                                                    "--idempotency-key", "load"], timeout: .seconds(120))
            let lines = try OutcomeLine.parse(load.stdoutLines)
            #expect(lines.count == count, "\(load.stderr.suffix(2000))")
            #expect(Set(lines.map(\.request)).count == lines.count, "one outcome per request")
            let succeeded = lines.filter { $0.outcome == "success" }
            let refused = lines.filter { $0.error?.code == "storageFull" }
            #expect(succeeded.count + refused.count == lines.count, "\(Set(lines.compactMap(\.error?.code)))")
            #expect(!refused.isEmpty, "the disk never crossed the minimum")
            #expect(!succeeded.isEmpty)
            #expect(coordinator.isRunning, "the coordinator exited: \(coordinator.stderr.suffix(3000))")

            // Every accepted request finished once: counted so, and published once each.
            let statistics = try bus.statistics()
            #expect(statistics["accepted"] == succeeded.count && statistics["completed"] == succeeded.count)
            #expect(statistics["storageFullRefusals"] == refused.count)
            #expect(statistics["journalFailures"] == 0)
            let published = { (try? OutcomeLine.parse(subscriber.stdoutLines).map(\.request)) ?? [] }
            _ = waitUntil { published().count >= succeeded.count }
            #expect(published().sorted() == succeeded.map(\.request).sorted())

            // Still below the minimum (the kept outcomes hold the space): new requests are refused
            // until the filler goes.
            #expect(statistics["storageFull"] == 1)
            let refusedNow = try bus.perform("Echo.say", ["--input", #"{"text":"full"}"#, "--json"])
            #expect(try OutcomeLine.parse(refusedNow.stdoutLines).first?.error?.code == "storageFull")
            try disk.remove()
            try expect(waitUntil(interval: .milliseconds(200)) { (try? bus.statistics()["storageFull"]) == 0 }, "never accepted again")
            let accepted = try bus.perform("Echo.say", ["--input", #"{"text":"room"}"#, "--json"])
            #expect(try OutcomeLine.parse(accepted.stdoutLines).first?.outcome == "success")
            #expect(coordinator.isRunning)

            // Each crossing was logged once as it happened: a warning on the way down, a notice on
            // the way back, both with the free bytes and the minimum.
            let crossings = coordinator.logRecords(withField: "disk.free")
            #expect(crossings.first?.level == "warning" && crossings.first?.integer("disk.minimum") == 1 << 20)
            #expect(crossings.last?.level == "notice")
            #expect(zip(crossings, crossings.dropFirst()).allSatisfy { $0.level != $1.level }, "a crossing logged twice")
        }
    }

    @Test(.enabled(if: tmpfs, "mounting a tmpfs needs root on Linux (ACTIONBUS_REQUIRE_TMPFS=1 makes it a failure)"))
    func aCoordinatorStartedOnAFullDiskRefusesAndRecoversWhenSpaceIsFreed() throws {
        try Self.onSmallDisk { bus, disk in
            try disk.fill(leaving: 0)
            #expect(disk.freeBytes == 0)
            // Not even the new journal's header fits: it starts all the same, refusing.
            let coordinator = try bus.startCoordinator(Self.journalOptions(on: disk))
            try bus.startWorker("w1", coordinator: coordinator)
            let refused = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "kept", "--json"])
            #expect(try OutcomeLine.parse(refused.stdoutLines).first?.error?.code == "storageFull")
            let statistics = try bus.statistics()
            #expect(statistics["storageFull"] == 1 && statistics["storageFullRefusals"] == 1 && statistics["diskFreeBytes"] == 0)
            #expect(coordinator.logRecords(withField: "disk.free").first?.level == "warning")
            // A Majordomo client gets the same refusal, as its reply's body (when pyzmq is here:
            // scripts/test.sh requires it).
            if let python = MajordomoInteropTests.python {
                let script = MajordomoV01Tests.zguide.appendingPathComponent("mdp01_client.py").path
                let client = try bus.startProgram("mdp-client", python.path, ["-B", script, bus.clients, "--service", "Echo.say"])
                #expect(client.waitForExit(timeout: .seconds(30)) == 0, "\(client.stderr)")
                let reply = try JSONSerialization.jsonObject(with: Data(client.stdout.utf8)) as? [String: Any]
                #expect((reply?["error"] as? [String: Any])?["code"] as? String == "storageFull", "\(client.stdout)")
                #expect(try bus.statistics()["storageFullRefusals"] == 2)
            }

            try disk.remove()
            try expect(waitUntil(interval: .milliseconds(200)) { (try? bus.statistics()["storageFull"]) == 0 }, "never accepted again")
            let first = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "kept", "--json"])
            let number = try OutcomeLine.parse(first.stdoutLines).first?.output?["n"]?.number
            #expect(number != nil, "\(first.stdout) \(first.stderr)")
            #expect(coordinator.isRunning)

            // The journal begun on the full disk is whole: a successor answers the retry from it.
            coordinator.signal(SIGKILL)
            try expect(coordinator.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
            let successor = try bus.startCoordinator(Self.journalOptions(on: disk), name: "coordinator-2")
            let retry = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "kept", "--json"])
            #expect(try OutcomeLine.parse(retry.stdoutLines).first?.output?["n"]?.number == number, "answered from the journal")
            #expect(successor.isRunning)
        }
    }

    @Test func aClientWhoseCoordinatorStoppedAnsweringIsToldSoAtItsDeadline() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        let perform = try bus.start("perform-slow", ["perform", "Clock.sleep", "--input", #"{"ms":30000}"#, "--timeout", "6",
                                                     "--coordinator", bus.clients, "--log-format", "json", "--log-level", "info"])
        // Accepted (ACCEPTED goes 100 ms after the request is recorded), then the coordinator goes.
        try expect(waitUntil(timeout: .seconds(5)) { (try? bus.statistics()["running"]) == 1 }, "the request did not start")
        // Its ACCEPTED leaves 100 ms after the record is committed; no sign of its arrival is
        // visible from outside the client, so it is given five times that.
        Thread.sleep(forTimeInterval: 0.5)
        coordinator.signal(SIGKILL)
        try expect(perform.waitForExit(timeout: .seconds(30)) != nil, "perform did not give up")
        #expect(perform.process.terminationStatus == 2, "unanswered")
        // Not `timedOut` (a coordinator that answers, with no worker finishing in time).
        #expect(perform.logRecords(withField: "error.code").map { $0.fields["error.code"] } == ["unreachable"], "\(perform.stderr)")
    }
}
