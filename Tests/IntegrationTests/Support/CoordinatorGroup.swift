import ActionBusTestSupport
import Foundation
import GroupLeadership

/// A coordinator group started by a test: an etcd of its own and `count` members (`a`, `b`,
/// ...) on free loopback ports, each with its own data directory, started and killed by PID
/// through a ``BusFixture``. Clients and workers get every member's endpoint.
final class CoordinatorGroup: @unchecked Sendable {
    struct Member {
        let name: String
        let replication: String
        let clients: String
        let workers: String
        let outcomes: String
        let dataDirectory: String
        /// The port of its HTTP side (`--http`), when the group was started with one.
        let httpPort: Int?
    }

    let bus: BusFixture
    let etcd: EtcdServer
    let group = "g"
    let members: [Member]
    let extra: [String]
    private(set) var processes: [String: BusProcess] = [:]
    private var starts = 0

    /// Starts etcd and the members (each with `--http` when `http`), and waits until one leads
    /// with every other in sync.
    init(bus: BusFixture, count: Int = 3, http: Bool = false, extra: [String] = []) async throws {
        self.bus = bus
        etcd = try await EtcdServer.startedForTest()
        self.extra = extra
        members = try (0..<count).map { index in
            let name = String(UnicodeScalar(UInt8(97 + index)))
            return Member(
                name: name, replication: "tcp://127.0.0.1:\(try freeLoopbackPort())", clients: "tcp://127.0.0.1:\(try freeLoopbackPort())",
                workers: "tcp://127.0.0.1:\(try freeLoopbackPort())", outcomes: "tcp://127.0.0.1:\(try freeLoopbackPort())",
                dataDirectory: bus.directory.appendingPathComponent("member-\(name)").path, httpPort: http ? try freeLoopbackPort() : nil
            )
        }
        for member in members { try start(member.name) }
        try expect(await inSync(count), "the group never had a leader with every member in sync: \(logs())")
    }

    /// Every member's clients endpoint, for `--coordinator`.
    var clients: String { members.map(\.clients).joined(separator: ",") }
    /// Every member's workers endpoint, for a worker's `--coordinator`.
    var workers: String { members.map(\.workers).joined(separator: ",") }
    /// Every member's outcomes endpoint, for a subscriber's `--outcomes`.
    var outcomes: String { members.map(\.outcomes).joined(separator: ",") }

    /// Starts (or starts again) member `name`.
    @discardableResult
    func start(_ name: String) throws -> BusProcess {
        let member = try requireMember(name)
        starts += 1
        let process = try bus.start("\(name)-\(starts)", [
            "coordinator", "--group", group, "--etcd", etcd.endpoint.absoluteString, "--name", name,
            "--clients", member.clients, "--workers", member.workers, "--outcomes", member.outcomes, "--data-dir", member.dataDirectory,
            "--heartbeat-ms", "200", "--log-format", "json",
        ] + members.flatMap { ["--member", "\($0.name)=\($0.replication)"] } + (member.httpPort.map { ["--http", "127.0.0.1:\($0)"] } ?? []) + extra)
        processes[name] = process
        return process
    }

    private func requireMember(_ name: String) throws -> Member {
        guard let member = members.first(where: { $0.name == name }) else { throw FixtureError(description: "no member \(name)") }
        return member
    }

    /// Who holds the leader key, and at which epoch.
    func leader() async throws -> LeaderRecord? {
        try await EtcdClient(endpoints: [etcd.endpoint]).range(.key(LeaderElector.Configuration.leaderKey(group: group))).first.map(LeaderRecord.init)
    }

    /// The in-sync set as the leader last recorded it.
    func inSyncSet() async throws -> [String]? {
        guard let value = try await EtcdClient(endpoints: [etcd.endpoint]).range(.key(CampaignCondition.inSyncKey(group: group))).first?.value else {
            return nil
        }
        return try JSONDecoder().decode([String].self, from: value)
    }

    /// Waits until a leader leads with `count` members (itself included) recorded in sync.
    func inSync(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await eventually(timeout: timeout, interval: .milliseconds(100)) {
            guard (try? await self.leader()) != nil else { return false }
            return (try? await self.inSyncSet())?.count == count
        }
    }

    /// Waits until a member other than `former` leads, and returns it.
    func newLeader(after former: LeaderRecord, timeout: Duration = .seconds(30)) async -> LeaderRecord? {
        var found: LeaderRecord?
        _ = await eventually(timeout: timeout, interval: .milliseconds(50)) {
            guard let leader = try? await self.leader(), leader.epoch > former.epoch else { return false }
            found = leader
            return true
        }
        return found
    }

    /// The leader's counters (`actionbus stats --json` over every member's endpoint).
    func statistics() throws -> [String: Int] {
        try bus.statistics(coordinator: clients)
    }

    /// The last lines of every member's log, for a failure's message.
    func logs() -> String {
        processes.map { "\($0.key): \($0.value.stderr.suffix(1500))" }.joined(separator: "\n")
    }
}

