import ActionBusTestSupport
import ActionJournal
import Foundation
import Testing

/// A leader coordinator replicating its journal to a warm standby (`actionbus standby`): what
/// clients were told survives the leader's `kill -9` on a coordinator started on the standby's
/// directory, and a standby that restarts catches up while the leader refuses new work.
@Suite("Replication to a standby", .serialized, .timeLimit(.minutes(4)))
struct StandbyReplicationTests {
    /// Starts `actionbus standby` on `endpoint` with its journal in `directory`, and waits until
    /// it listens (its log's `endpoint.replication`).
    static func startStandby(_ bus: BusFixture, _ name: String, endpoint: String, directory: String) throws -> BusProcess {
        let standby = try bus.start(name, ["standby", "--listen", endpoint, "--data-dir", directory, "--log-format", "json"])
        let listening = { !standby.logRecords(withField: "endpoint.replication").isEmpty }
        _ = waitUntil { listening() || !standby.process.isRunning }
        try expect(listening(), "\(name) did not start: \(standby.stderr)")
        return standby
    }

    static func inSync(_ bus: BusFixture, _ count: Int) -> Bool {
        waitUntil(timeout: .seconds(20), interval: .milliseconds(100)) { (try? bus.statistics()["standbysInSync"]) == count }
    }

    /// A standby, then a leader replicating to it (with `extra`), once it is in sync.
    static func startLeaderAndStandby(_ bus: BusFixture, _ extra: [String] = []) throws -> (leader: BusProcess, standby: BusProcess, endpoint: String, copy: String) {
        let endpoint = "tcp://127.0.0.1:\(try freeLoopbackPort())"
        let copy = bus.directory.appendingPathComponent("standby").path
        let standby = try startStandby(bus, "standby", endpoint: endpoint, directory: copy)
        let leader = try bus.startCoordinator(["--heartbeat-ms", "200", "--standby", endpoint] + extra)
        try expect(inSync(bus, 1), "the standby never came in sync: \(leader.stderr.suffix(2000)) STANDBY: \(standby.stderr.suffix(2000))")
        return (leader, standby, endpoint, copy)
    }

    static func journal(_ directory: String) -> Data? {
        FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent("journal.log"))
    }

    /// A CURVE coordinator replicates over CURVE: a standby given the coordinator's key comes in
    /// sync and copies what is accepted; one without it never does.
    @Test func underCurveTheJournalTravelsEncryptedToAStandbyHoldingTheCoordinatorKey() throws {
        let bus = try BusFixture()
        let keys = bus.directory.appendingPathComponent("keys").path
        for folder in ["/clients", "/workers"] {
            try FileManager.default.createDirectory(atPath: keys + folder, withIntermediateDirectories: true)
        }
        for base in ["\(keys)/coordinator", "\(keys)/clients/client", "\(keys)/workers/worker"] {
            #expect(try bus.start("keygen-\(URL(fileURLWithPath: base).lastPathComponent)", ["keygen", "--out", base]).waitForExit() == 0)
        }
        bus.queryOptions = ["--curve-secret-key", "\(keys)/clients/client.key", "--coordinator-key", "\(keys)/coordinator.pub"]
        let endpoint = "tcp://127.0.0.1:\(try freeLoopbackPort())"
        let copy = bus.directory.appendingPathComponent("standby").path
        let standby = try bus.start("standby", ["standby", "--listen", endpoint, "--data-dir", copy, "--log-format", "json",
                                                "--curve-secret-key", "\(keys)/coordinator.key"])
        let leader = try bus.startCoordinator([
            "--heartbeat-ms", "200", "--standby", endpoint, "--curve-secret-key", "\(keys)/coordinator.key",
            "--allow-clients", "\(keys)/clients", "--allow-workers", "\(keys)/workers",
        ])
        try expect(Self.inSync(bus, 1), "the standby never came in sync: \(leader.stderr.suffix(2000)) STANDBY: \(standby.stderr.suffix(2000))")
        #expect(standby.logRecords(withField: "endpoint.replication").first?.fields["security"] == "CURVE")
        try bus.startWorker("w1", coordinator: leader, ["--heartbeat-ms", "200", "--curve-secret-key", "\(keys)/workers/worker.key",
                                                         "--coordinator-key", "\(keys)/coordinator.pub"])
        let perform = try bus.perform("Echo.say", ["--input", #"{"text":"sealed"}"#, "--json"] + bus.queryOptions)
        #expect(perform.process.terminationStatus == 0, "\(perform.stderr)")
        let request = try #require(try OutcomeLine.parse(perform.stdoutLines).first?.request)
        standby.signal(SIGTERM)
        try expect(standby.waitForExit(timeout: .seconds(10)) == 0, "the standby did not stop: \(standby.stderr.suffix(2000))")
        let (recovery, _) = try RequestJournal.recovery(of: [UInt8](try #require(Self.journal(copy))))
        #expect(recovery.finished.contains { $0.requestID == request }, "the outcome is not in the standby's copy")

        // A plaintext standby on the same endpoint is never sent anything: a request that needs
        // it waits for it (and fails), and its copy stays empty.
        let plaintext = try Self.startStandby(bus, "plaintext", endpoint: endpoint, directory: copy + "-plaintext")
        _ = try bus.perform("Echo.say", ["--input", #"{"text":"waits"}"#, "--timeout", "3"] + bus.queryOptions)
        plaintext.signal(SIGTERM)
        try expect(plaintext.waitForExit(timeout: .seconds(10)) == 0, "the plaintext standby did not stop: \(plaintext.stderr.suffix(2000))")
        let (unsent, _) = try RequestJournal.recovery(of: [UInt8](Self.journal(copy + "-plaintext") ?? Data()))
        #expect(unsent.records == 0, "a standby without the coordinator key was sent \(unsent.records) records")
    }

    @Test func aCoordinatorOnTheStandbysCopyFinishesEverythingAfterTheLeaderIsKilled() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let (leader, standby, _, copy) = try Self.startLeaderAndStandby(bus)
        let credits = 16
        let worker = try bus.startWorker("w1", coordinator: leader, fast + ["--credits", "\(credits)"])
        let count = 3000
        let load = try bus.start("load", ["perform", "Clock.sleep", "--input", #"{"ms":10}"#, "--count", "\(count)",
                                          "--concurrency", "\(count)", "--timeout", "120", "--json", "--coordinator", bus.clients])
        try expect(waitUntil(interval: .milliseconds(50)) { (try? bus.statistics()["completed"]) ?? 0 > 300 },
                   "w1 did not start serving: \(worker.stderr)")
        leader.signal(SIGKILL)
        try expect(leader.waitForExit(timeout: .seconds(10)) != nil, "the leader did not die")
        let answeredBeforeKill = try OutcomeLine.parse(load.stdoutLines).map(\.request)
        #expect(answeredBeforeKill.count < count / 2, "the kill came too late to test anything (\(answeredBeforeKill.count) answered)")

        // Failing over by hand: the standby stops, a coordinator starts on its directory at the
        // leader's endpoints.
        standby.signal(SIGTERM)
        try expect(standby.waitForExit(timeout: .seconds(10)) == 0, "the standby did not stop: \(standby.stderr.suffix(2000))")
        // Synchronous: every outcome a client had before the kill is in the copy (a leader that
        // answered before its standby synced would leave the last ones out).
        let (recovery, _) = try RequestJournal.recovery(of: [UInt8](try #require(Self.journal(copy))))
        let finishedInCopy = Set(recovery.finished.map(\.requestID))
        let missing = answeredBeforeKill.filter { !finishedInCopy.contains($0) }
        #expect(missing.isEmpty, "\(missing.count) outcomes answered before the kill are not in the copy, e.g. \(missing.prefix(3))")
        let successor = try bus.startCoordinator(fast + ["--data-dir", copy], name: "successor")
        let opened = try #require(successor.logRecords(withField: "journal.unfinished").first, "no journal opened: \(successor.stderr)")
        #expect(opened.integer("journal.unfinished") ?? 0 > 0, "the copy held no unfinished work: \(successor.stderr)")

        _ = try LoadTests.expectEachSucceededOnce(load, count: count, worker: worker, credits: credits)
    }

    /// Synchronous, not merely replicated: with the standby paused, the leader tells clients
    /// nothing more, so when both die every outcome a client had is in the copy. (A leader that
    /// answered before its standby synced would have answered during the pause, and the copy
    /// would lack those answers.)
    @Test func everyOutcomeAClientHadIsInTheCopyWhenTheStandbyLaggedAndBothDied() throws {
        let bus = try BusFixture()
        let (leader, standby, _, copy) = try Self.startLeaderAndStandby(bus)
        try bus.startWorker("w1", coordinator: leader, ["--heartbeat-ms", "200"])
        let load = try bus.start("load", ["perform", "Echo.say", "--input", #"{"text":"x"}"#, "--count", "100000", "--concurrency", "200",
                                          "--timeout", "60", "--json", "--coordinator", bus.clients])
        try expect(waitUntil(interval: .milliseconds(50)) { (try? bus.statistics()["completed"]) ?? 0 > 1000 }, "the load did not start")
        standby.signal(SIGSTOP)
        // Well within --standby-timeout (2 s): the standby is in sync, only late.
        Thread.sleep(forTimeInterval: 0.5)
        leader.signal(SIGKILL)
        try expect(leader.waitForExit(timeout: .seconds(10)) != nil, "the leader did not die")
        standby.signal(SIGKILL)
        try expect(standby.waitForExit(timeout: .seconds(10)) != nil, "the standby did not die")
        load.signal(SIGKILL)
        _ = load.waitForExit(timeout: .seconds(10))
        // Killed mid-write, its last line may be cut short (and what it had not flushed is lost:
        // the lines read are a subset of what it was told).
        let answered = load.stdoutLines.compactMap { try? OutcomeLine.parse([$0]).first?.request }
        #expect(answered.count >= 100, "too few outcomes reached the client to test anything")
        let (recovery, _) = try RequestJournal.recovery(of: [UInt8](try #require(Self.journal(copy))))
        let finishedInCopy = Set(recovery.finished.map(\.requestID))
        let missing = answered.filter { !finishedInCopy.contains($0) }
        #expect(missing.isEmpty, "\(missing.count) of \(answered.count) outcomes clients had are not in the copy, e.g. \(missing.prefix(3))")
    }

    @Test func aRestartedStandbyCatchesUpAndTheLeaderAcceptsAgain() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let (leader, standby, endpoint, copy) = try Self.startLeaderAndStandby(bus, ["--standby-timeout", "500ms"])
        try bus.startWorker("w1", coordinator: leader, fast)
        let before = try bus.perform("Echo.say", ["--input", #"{"text":"before"}"#, "--count", "200", "--concurrency", "50", "--json"])
        #expect(before.process.terminationStatus == 0, "\(before.stderr)")

        standby.signal(SIGKILL)
        try expect(standby.waitForExit(timeout: .seconds(10)) != nil, "the standby did not die")
        // Accepted while the standby is gone: their replies wait for it.
        let held = try bus.start("held", ["perform", "Echo.say", "--input", #"{"text":"held"}"#, "--count", "20",
                                          "--concurrency", "20", "--timeout", "60", "--json", "--coordinator", bus.clients])
        try expect(Self.inSync(bus, 0), "the leader did not notice the standby was gone: \(leader.stderr.suffix(2000))")
        // A short deadline: the client tries a refused request again while its deadline allows.
        let refused = try bus.perform("Echo.say", ["--input", #"{"text":"refused"}"#, "--json", "--timeout", "1"])
        #expect(refused.process.terminationStatus != 0)
        #expect(try OutcomeLine.parse(refused.stdoutLines).first?.error?.code == "unavailable", "\(refused.stdout) \(refused.stderr)")
        #expect(held.isRunning, "replies went out without the standby: \(held.stdout)")
        let outOfSync = try bus.statistics()
        #expect(outOfSync["unavailableRefusals", default: 0] >= 1 && outOfSync["standbys"] == 1, "\(outOfSync)")

        let restarted = try Self.startStandby(bus, "standby-2", endpoint: endpoint, directory: copy)
        try expect(Self.inSync(bus, 1), "the restarted standby never came in sync: \(restarted.stderr.suffix(2000))")
        // Its file is the start of the leader's: it is sent only what it lacks.
        let caughtUp = restarted.logRecords(withField: "replication.catchUp")
        #expect(caughtUp.first?.fields["replication.catchUp"] == "tail", "it took the whole journal: \(restarted.stderr.suffix(2000))")
        #expect((caughtUp.first?.integer("journal.held") ?? 0) > 0 && (caughtUp.first?.integer("journal.bytes") ?? .max) < (caughtUp.first?.integer("journal.held") ?? 0),
                "\(caughtUp)")
        #expect(held.waitForExit(timeout: .seconds(30)) == 0, "\(held.stderr)")
        let heldOutcomes = try OutcomeLine.parse(held.stdoutLines)
        #expect(heldOutcomes.count == 20 && heldOutcomes.allSatisfy { $0.outcome == "success" })
        let after = try bus.perform("Echo.say", ["--input", #"{"text":"after"}"#, "--count", "200", "--concurrency", "50", "--json"])
        #expect(after.process.terminationStatus == 0, "\(after.stderr)")
        let stats = try bus.statistics()
        #expect(stats["standbyInSyncChanges", default: 0] >= 3, "in sync, out, in again: \(stats)")
        // Once everything is acknowledged the copy is the leader's file, byte for byte.
        try expect(waitUntil { Self.journal(copy) != nil && Self.journal(copy) == Self.journal(bus.dataDirectory) },
                   "the copy differs from the leader's journal")
    }

    /// `--standby-optional`: availability chosen. A standby that is gone leaves the in-sync set
    /// and the leader goes on accepting and answering; restarted, it catches up and rejoins.
    @Test func withStandbyOptionalALostStandbyLeavesTheInSyncSetAndNothingStops() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let (leader, standby, endpoint, copy) = try Self.startLeaderAndStandby(bus, ["--standby-timeout", "500ms", "--standby-optional"])
        try bus.startWorker("w1", coordinator: leader, fast)
        standby.signal(SIGKILL)
        try expect(standby.waitForExit(timeout: .seconds(10)) != nil, "the standby did not die")
        let alone = try bus.perform("Echo.say", ["--input", #"{"text":"alone"}"#, "--count", "200", "--concurrency", "50", "--json"])
        #expect(alone.process.terminationStatus == 0, "\(alone.stderr)")
        #expect(try OutcomeLine.parse(alone.stdoutLines).filter { $0.outcome == "success" }.count == 200)
        let dropped = try bus.statistics()
        #expect(dropped["standbysInSync"] == 0 && dropped["unavailableRefusals"] == 0, "\(dropped)")
        let left = leader.logRecords(withField: "replication.reason").filter { $0.fields["replication.reason"] == "timeout" }
        #expect(left.first?.level == "error", "leaving the in-sync set is logged as an error")

        let restarted = try Self.startStandby(bus, "standby-2", endpoint: endpoint, directory: copy)
        try expect(Self.inSync(bus, 1), "the restarted standby never came in sync: \(restarted.stderr.suffix(2000))")
        let after = try bus.perform("Echo.say", ["--input", #"{"text":"after"}"#, "--count", "50", "--json"])
        #expect(after.process.terminationStatus == 0, "\(after.stderr)")
        try expect(waitUntil { Self.journal(copy) != nil && Self.journal(copy) == Self.journal(bus.dataDirectory) },
                   "the copy differs from the leader's journal")
    }
}
