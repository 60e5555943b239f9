import ActionBusTestSupport
import ActionClient
import ActionJournal
import ActionTransport
import ActionWire
import ExampleFeatures
import Foundation
import GroupLeadership
import Testing
import ZeroMQ

/// A coordinator group (`actionbus coordinator --group`): three members, etcd deciding who
/// leads, clients and workers given every member. Under load, the leader is killed, or paused
/// past its lease: a standby takes over at a higher epoch, every request succeeds once, a
/// subscriber resuming from the stream's start sees each outcome once, and the old leader
/// rejoins as a standby.
@Suite(
    "A coordinator group", .serialized, .timeLimit(.minutes(4)),
    .enabled(if: EtcdServer.testsEnabled, "needs etcd: apt-get install etcd-server")
)
struct CoordinatorGroupTests {
    static let fast = ["--heartbeat-ms", "200"]

    /// Every outcome in `answered` is in member `name`'s journal (stopped first): nothing a
    /// client was told came from a leader that had not replicated it.
    static func expectAnsweredAreInJournal(_ group: CoordinatorGroup, of name: String, _ answered: [String]) throws {
        let process = try #require(group.processes[name])
        process.signal(SIGTERM)
        try expect(process.waitForExit(timeout: .seconds(20)) != nil, "\(name) did not stop")
        let member = try #require(group.members.first { $0.name == name })
        let bytes = try #require(FileManager.default.contents(atPath: (member.dataDirectory as NSString).appendingPathComponent("journal.log")))
        let (recovery, _) = try RequestJournal.recovery(of: [UInt8](bytes))
        let finished = Set(recovery.finished.map(\.requestID))
        let missing = answered.filter { !finished.contains($0) }
        #expect(missing.isEmpty, "\(missing.count) of \(answered.count) outcomes are not in \(name)'s journal, e.g. \(missing.prefix(3))")
    }

    /// A group of three under load: 3,000 requests of 20 ms in flight (sent with every
    /// member's endpoint) through one worker (likewise), a tenth of them done.
    struct LoadedGroup {
        let group: CoordinatorGroup
        /// Who led when the load started, and its process.
        let first: LeaderRecord
        let leader: BusProcess
        let worker: BusProcess
        let load: BusProcess
        let count: Int
    }

    static func startLoadedGroup() async throws -> LoadedGroup {
        let group = try await CoordinatorGroup(bus: try BusFixture())
        let first = try #require(try await group.leader())
        let leader = try #require(group.processes[first.member])
        let worker = try group.bus.start("w1", ["worker", "--examples", "--coordinator", group.workers, "--name", "w1", "--credits", "16",
                                               "--log-format", "json"] + fast)
        try expect(waitUntil(interval: .milliseconds(200)) {
            (try? group.statistics()["workers"]) == 1
        }, "the worker did not register: \(worker.stderr.suffix(2000)) \(group.logs())")
        let count = 3000
        let load = try group.bus.start("load", ["perform", "Clock.sleep", "--input", #"{"ms":20}"#, "--count", "\(count)",
                                                "--concurrency", "\(count)", "--timeout", "120", "--json", "--coordinator", group.clients])
        try expect(waitUntil(interval: .milliseconds(100)) { (try? group.statistics()["completed"]) ?? 0 > count / 10 },
                   "the load did not start: \(load.stderr.suffix(2000))")
        return LoadedGroup(group: group, first: first, leader: leader, worker: worker, load: load, count: count)
    }

    @Test func killingTheLeaderLosesNothingAndAStandbyLeadsAtAHigherEpoch() async throws {
        let loaded = try await Self.startLoadedGroup()
        let (group, first, killed) = (loaded.group, loaded.first, loaded.leader)
        // A subscriber resuming from the start, through the failover.
        let subscriber = try ResumedStreamTests.startResumingSubscriber(group.bus, count: loaded.count, clients: group.clients, outcomes: group.outcomes)
        try expect(waitUntil(interval: .milliseconds(50)) { subscriber.stdoutLines.count > 100 }, "the subscriber printed nothing: \(subscriber.stderr)")
        killed.signal(SIGKILL)
        try expect(killed.waitForExit(timeout: .seconds(10)) != nil, "the leader did not die")
        let second = try #require(await group.newLeader(after: first), "no member took over: \(group.logs())")
        #expect(second.member != first.member)

        let answered = try LoadTests.expectEachSucceededOnce(loaded.load, count: loaded.count, worker: loaded.worker)
        try ResumedStreamTests.expectSawEachOnce(subscriber, answered)
        // The killed member comes back as a standby and catches up.
        try group.start(first.member)
        #expect(await group.inSync(3), "the old leader did not rejoin in sync: \(group.logs())")
        #expect(try await group.leader() == second, "its return changed nothing of the leadership")
        try Self.expectAnsweredAreInJournal(group, of: second.member, answered)
    }

    /// SIGSTOP past the lease, then SIGCONT: the old leader finds its lease gone and stops
    /// leading before it releases anything more; what clients were told is all in the new
    /// leader's journal.
    @Test func aLeaderPausedPastItsLeaseStopsLeadingAndRejoinsAsAStandby() async throws {
        let loaded = try await Self.startLoadedGroup()
        let (group, first, paused) = (loaded.group, loaded.first, loaded.leader)
        paused.signal(SIGSTOP)
        let second = try #require(await group.newLeader(after: first), "no member took over: \(group.logs())")
        paused.signal(SIGCONT)
        // It hears it no longer leads (its log's group.reason), then takes the new leader's journal.
        try expect(waitUntil { !paused.logRecords(withField: "group.reason").isEmpty }, "the paused leader never stopped leading: \(paused.stderr.suffix(3000))")
        #expect(paused.isRunning, "it rejoins, it does not exit: \(paused.stderr.suffix(2000))")
        #expect(await group.inSync(3), "the old leader did not rejoin in sync: \(group.logs())")

        let answered = try LoadTests.expectEachSucceededOnce(loaded.load, count: loaded.count, worker: loaded.worker)
        try Self.expectAnsweredAreInJournal(group, of: second.member, answered)
    }

    /// A standby answers NOT-LEADER on its clients and workers endpoints: a worker and a client
    /// given the standbys first reach the leader at once. Their heartbeats are 10 s, so moving on
    /// silence instead would take 20 s a member.
    @Test func standbysAnswerNotLeaderSoWorkersAndClientsFindTheLeaderAtOnce() async throws {
        let group = try await CoordinatorGroup(bus: try BusFixture())
        let leader = try #require(try await group.leader())
        let standbysFirst = group.members.filter { $0.name != leader.member } + group.members.filter { $0.name == leader.member }
        let worker = try group.bus.start("w1", [
            "worker", "--examples", "--coordinator", standbysFirst.map(\.workers).joined(separator: ","), "--name", "w1",
            "--heartbeat-ms", "10000", "--log-format", "json",
        ])
        try expect(waitUntil(timeout: .seconds(8), interval: .milliseconds(100)) { (try? group.statistics()["workers"]) == 1 },
                   "the worker did not reach the leader: \(worker.stderr.suffix(2000))")

        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = standbysFirst.map(\.clients).joined(separator: ",")
        configuration.heartbeatInterval = .seconds(10)
        let client = try ActionClient(configuration: configuration)
        let echoed = try await client.perform(EchoFeature.say, .init(text: "found"), timeout: .seconds(8))
        #expect(echoed.text == "found")
        await client.close()
    }

    /// A standby's NOT-LEADER names where the leader serves, as the leader published it in etcd:
    /// its clients endpoint to clients, its workers endpoint to workers. A client or worker
    /// that has that endpoint in its list goes there next, at once.
    @Test func aStandbysNotLeaderNamesTheLeadersEndpoints() async throws {
        let group = try await CoordinatorGroup(bus: try BusFixture())
        let leader = try #require(try await group.leader())
        let leaderMember = try #require(group.members.first { $0.name == leader.member })
        let standby = try #require(group.members.first { $0.name != leader.member })
        let context = try ZMQContext()
        defer { _ = context.terminate() }

        /// Sends `message` to `endpoint` until a NOT-LEADER naming a leader comes back (the
        /// standby reads the leader's endpoints from etcd once it has seen it lead).
        func namedLeader(at endpoint: String, sending message: WireFrameList, decode: (WireFrameList) throws -> String?) throws -> String? {
            let socket = try Socket(context, type: .dealer)
            defer { socket.close() }
            try socket.setOption(.linger, 0)
            try socket.setOption(.receiveTimeout, 500)
            try socket.connect(endpoint)
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline {
                try socket.send(Multipart(message.frames))
                guard let reply = try? socket.receiveBusMessage() else { continue }
                if let named = try decode(WireFrameList(reply.frames)) { return named }
                usleep(100_000)
            }
            return nil
        }
        var ping = WireFrameList()
        ClientMessage.ping.encode(into: &ping)
        let toClients = try namedLeader(at: standby.clients, sending: ping) { frames in
            guard case let .notLeader(leader) = try ClientReply.decode(frames) else { return nil }
            return leader
        }
        #expect(toClients == leaderMember.clients)
        var ready = WireFrameList()
        WorkerMessage.ready(WorkerRegistration(name: "probe", credits: 1, actions: ["Echo.say"], running: [])).encode(into: &ready)
        let toWorkers = try namedLeader(at: standby.workers, sending: ready) { frames in
            guard case let .notLeader(leader) = try WorkerInstruction.decode(frames) else { return nil }
            return leader
        }
        #expect(toWorkers == leaderMember.workers)
    }

    /// An unmodified Majordomo client (the zguide's `mdcliapi`) knows one broker. Given a member
    /// that does not lead, its request is forwarded to the leader and the reply relayed back;
    /// after the leader is killed, the same client on the same member is still served.
    @Test(.enabled(if: MajordomoV01Tests.pythonAvailable, "needs pyzmq: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func aMajordomoClientOfAMemberThatDoesNotLeadIsServedThroughTheLeader() async throws {
        let group = try await CoordinatorGroup(bus: try BusFixture())
        let first = try #require(try await group.leader())
        try group.bus.start("w1", ["worker", "--examples", "--coordinator", group.workers, "--name", "w1", "--heartbeat-ms", "200"])
        try expect(waitUntil(timeout: .seconds(20), interval: .milliseconds(100)) { (try? group.statistics()["workers"]) == 1 },
                   "the worker did not reach the leader: \(group.logs())")
        let standby = try #require(group.members.first { $0.name != first.member })
        let python = try #require(MajordomoInteropTests.python, "ACTIONBUS_REQUIRE_PYTHON is set but no Python with pyzmq was found")
        func ask(_ text: String) throws -> [String: Any]? {
            let client = try group.bus.startProgram("mdp01-\(text)", python.path, [
                "-B", MajordomoV01Tests.zguide.appendingPathComponent("mdp01_client.py").path, standby.clients,
                "--service", "Echo.say", "--body", #"{"text":"\#(text)"}"#, "--retries", "8",
            ])
            #expect(client.waitForExit(timeout: .seconds(40)) == 0, "\(client.stdout)\(client.stderr) \(group.logs().suffix(3000))")
            return try JSONSerialization.jsonObject(with: Data(client.stdout.utf8)) as? [String: Any]
        }
        let forwarded = try ask("forwarded")
        #expect(forwarded?["outcome"] as? String == "success", "\(String(describing: forwarded))")
        #expect((forwarded?["output"] as? [String: Any])?["text"] as? String == "forwarded")

        let killed = try #require(group.processes[first.member])
        killed.signal(SIGKILL)
        try expect(killed.waitForExit(timeout: .seconds(10)) != nil, "the leader did not die")
        let second = try #require(await group.newLeader(after: first), "no member took over: \(group.logs())")
        let after = try ask("after")
        #expect(after?["outcome"] as? String == "success", "\(String(describing: after)) (leader now \(second.member))")
        #expect((after?["output"] as? [String: Any])?["text"] as? String == "after")
    }

    /// With CURVE on the clients socket too: the standby checks the Majordomo client's key, then
    /// forwards under the coordinator key the members share, which the leader allows as a
    /// fellow member's. A client whose key is not allowed is not forwarded (nor answered).
    @Test(.enabled(if: MajordomoV01Tests.pythonAvailable, "needs pyzmq: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func underCurveAMajordomoClientOfAStandbyIsForwardedAsAFellowMember() async throws {
        let bus = try BusFixture()
        let keys = bus.directory.appendingPathComponent("keys").path
        for folder in ["/clients", "/workers", "/other"] {
            try FileManager.default.createDirectory(atPath: keys + folder, withIntermediateDirectories: true)
        }
        for base in ["\(keys)/coordinator", "\(keys)/clients/client", "\(keys)/workers/worker", "\(keys)/other/intruder"] {
            let keygen = try bus.start("keygen-\(URL(fileURLWithPath: base).lastPathComponent)", ["keygen", "--out", base])
            #expect(keygen.waitForExit() == 0, "\(keygen.stderr)")
        }
        bus.queryOptions = ["--curve-secret-key", "\(keys)/clients/client.key", "--coordinator-key", "\(keys)/coordinator.pub"]
        let group = try await CoordinatorGroup(bus: bus, extra: [
            "--curve-secret-key", "\(keys)/coordinator.key", "--allow-clients", "\(keys)/clients", "--allow-workers", "\(keys)/workers",
        ])
        let leader = try #require(try await group.leader())
        try bus.start("w1", ["worker", "--examples", "--coordinator", group.workers, "--name", "w1", "--heartbeat-ms", "200",
                             "--curve-secret-key", "\(keys)/workers/worker.key", "--coordinator-key", "\(keys)/coordinator.pub"])
        try expect(waitUntil(timeout: .seconds(20), interval: .milliseconds(100)) { (try? group.statistics()["workers"]) == 1 },
                   "the worker did not reach the leader: \(group.logs())")
        let standby = try #require(group.members.first { $0.name != leader.member })
        let python = try #require(MajordomoInteropTests.python, "ACTIONBUS_REQUIRE_PYTHON is set but no Python with pyzmq was found")
        func ask(as key: String, retries: Int) throws -> BusProcess {
            let client = try bus.startProgram("mdp01-\(URL(fileURLWithPath: key).lastPathComponent)", python.path, [
                "-B", MajordomoV01Tests.zguide.appendingPathComponent("mdp01_client.py").path, standby.clients,
                "--service", "Echo.say", "--body", #"{"text":"curve"}"#, "--retries", "\(retries)",
                "--curve-secret-key", key, "--server-key", "\(keys)/coordinator.pub",
            ])
            _ = client.waitForExit(timeout: .seconds(40))
            return client
        }
        let allowed = try ask(as: "\(keys)/clients/client.key", retries: 8)
        #expect(allowed.process.terminationStatus == 0, "\(allowed.stdout)\(allowed.stderr) \(group.logs().suffix(3000))")
        let reply = try JSONSerialization.jsonObject(with: Data(allowed.stdout.utf8)) as? [String: Any]
        #expect(reply?["outcome"] as? String == "success", "\(String(describing: reply))")
        #expect((reply?["output"] as? [String: Any])?["text"] as? String == "curve")

        let intruder = try ask(as: "\(keys)/other/intruder.key", retries: 1)
        #expect(intruder.process.terminationStatus == 2, "an unknown key got an answer: \(intruder.stdout)")

        // The replication link is CURVE too (the group got in sync over it): a standby answers
        // a probe from an older epoch (`staleEpoch`) only to a peer holding the coordinator key.
        let context = try ZMQContext()
        defer { _ = context.terminate() }
        let coordinatorKeys = try CurveKeyPair(secretKey: try CurveKeyFile.readKey("\(keys)/coordinator.key"))
        func probeAnswered(as keys: CurveClientKeys?) throws -> Bool {
            let socket = try Socket(context, type: .dealer)
            defer { socket.close() }
            try socket.setOption(.linger, 0)
            try socket.setOption(.receiveTimeout, 1_500)
            try keys?.apply(to: socket)
            try socket.connect(standby.replication)
            try socket.send(ReplicationMessage(.probe, epoch: 0, stream: 1, sequence: 1).header)
            guard let answer = try? socket.receiveMultipart(), answer.count == 1 else { return false }
            return (try? ReplicationMessage.decode(header: answer[0], payload: nil))?.kind == .staleEpoch
        }
        #expect(try probeAnswered(as: CurveClientKeys(keyPair: coordinatorKeys, serverPublicKey: coordinatorKeys.publicKey)))
        #expect(try !probeAnswered(as: nil), "a plaintext peer reached the standby")
        let client = try CurveClientKeys(secretKeyFile: "\(keys)/clients/client.key", serverKeyFile: "\(keys)/coordinator.pub")
        #expect(try !probeAnswered(as: client), "a client's key reached the standby")
    }

    /// A group of three needs one in-sync standby by default: losing one standby costs nothing,
    /// losing both refuses new requests `unavailable` until one is back.
    @Test func aLeaderKeepsAcceptingWithOneStandbyAndRefusesWithNone() async throws {
        let bus = try BusFixture()
        let group = try await CoordinatorGroup(bus: bus, extra: ["--standby-timeout", "500ms"])
        let leader = try #require(try await group.leader())
        let standbys = group.members.map(\.name).filter { $0 != leader.member }
        try group.bus.start("w1", ["worker", "--examples", "--coordinator", group.workers, "--name", "w1", "--log-format", "json"] + Self.fast)
        func startPerform(_ text: String, timeout: Int) throws -> BusProcess {
            try bus.start("perform-\(text)-\(UUID().uuidString.prefix(6))", [
                "perform", "Echo.say", "--input", #"{"text":"\#(text)"}"#, "--json", "--timeout", "\(timeout)", "--coordinator", group.clients,
            ])
        }
        func perform(_ text: String, timeout: Int = 20) throws -> BusProcess {
            let process = try startPerform(text, timeout: timeout)
            try expect(process.waitForExit(timeout: .seconds(timeout + 20)) != nil, "perform \(text) did not finish")
            return process
        }

        let lost = try #require(group.processes[standbys[0]])
        lost.signal(SIGKILL)
        _ = lost.waitForExit(timeout: .seconds(10))
        // The lagging standby is recorded out, so it could not be elected...
        let recordedOut = await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
            _ = try? perform("nudge")
            return (try? await group.inSyncSet()).map { !$0.contains(standbys[0]) } ?? false
        }
        #expect(recordedOut, "the dead standby was never recorded out: \(group.logs())")
        // ...and new work goes on with the other.
        let withOne = try perform("one")
        #expect(withOne.process.terminationStatus == 0, "\(withOne.stdout) \(withOne.stderr)")

        let second = try #require(group.processes[standbys[1]])
        second.signal(SIGKILL)
        _ = second.waitForExit(timeout: .seconds(10))
        let refused = await eventually(timeout: .seconds(20), interval: .milliseconds(200)) {
            guard let process = try? perform("none", timeout: 1) else { return false }
            return (try? OutcomeLine.parse(process.stdoutLines).first?.error?.code) == "unavailable"
        }
        #expect(refused, "with no standby in sync new requests were not refused unavailable: \(group.logs())")
        #expect(try await group.inSyncSet() == [leader.member], "the set holds the leader alone")

        // A client whose deadline leaves room tries again until a standby is back (nothing of a
        // refusal is recorded).
        let waiting = try startPerform("waiting", timeout: 60)
        try expect(waitUntil(timeout: .seconds(20), interval: .milliseconds(200)) {
            (try? group.statistics()["unavailableRefusals"]) ?? 0 >= 3
        }, "the waiting request was not refused again and again: \(waiting.stderr)")
        #expect(waiting.isRunning, "it did not give up: \(waiting.stdout)")
        try group.start(standbys[1])
        #expect(await group.inSync(2), "the restarted standby did not come back in sync: \(group.logs())")
        #expect(waiting.waitForExit(timeout: .seconds(60)) == 0, "\(waiting.stdout) \(waiting.stderr)")
        #expect(try OutcomeLine.parse(waiting.stdoutLines).first?.outcome == "success", "\(waiting.stdout)")
    }
}
