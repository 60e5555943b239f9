import ActionBusTestSupport
import Foundation
import GroupLeadership
import Testing

/// A coordinator group's HTTP side (`--http` on every member) and `actionbus group`: `/readyz`
/// is 200 on the leader alone, so a Service in front of every member routes to it, and moves
/// to the next leader when the leader is killed; `/api/group` and `actionbus group --json` say
/// who leads at which epoch.
@Suite(
    "A coordinator group's operations", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: EtcdServer.testsEnabled, "needs etcd: apt-get install etcd-server")
)
struct CoordinatorGroupOperationsTests {
    /// `/api/group` as the tests read it.
    struct MemberStatus: Decodable {
        struct Replication: Decodable {
            let configured: Int
            let inSync: Int
            let required: Int
        }

        let group: String
        let member: String
        let role: String
        let epoch: Int64?
        let leader: String?
        let leaderEpoch: Int64?
        let inSyncSet: [String]?
        let replication: Replication?
        let termsLed: Int
        let leadershipChanges: Int
    }

    /// `actionbus group --json` as the tests read it.
    struct GroupReport: Decodable {
        struct Member: Decodable {
            let name: String
            let status: MemberStatus?
            let error: String?
        }

        let group: String
        let leader: String?
        let epoch: Int64?
        let inSyncSet: [String]?
        let members: [Member]
    }

    static func port(_ group: CoordinatorGroup, _ name: String) throws -> Int {
        try #require(group.members.first { $0.name == name }?.httpPort)
    }

    /// The members whose `/readyz` answers 200 now.
    static func readyMembers(_ group: CoordinatorGroup) throws -> [String] {
        try group.members.map(\.name).filter { httpRequest(port: try port(group, $0), path: "/readyz", timeout: 2)?.status == 200 }
    }

    static func status(_ group: CoordinatorGroup, _ name: String) throws -> MemberStatus? {
        guard let answer = httpRequest(port: try port(group, name), path: "/api/group", timeout: 5), answer.status == 200 else { return nil }
        return try JSONDecoder().decode(MemberStatus.self, from: Data(answer.body.utf8))
    }

    /// `actionbus group --json`, asking every member's HTTP side.
    static func groupReport(_ group: CoordinatorGroup) throws -> GroupReport {
        let memberHTTP = try group.members.flatMap { ["--member-http", "\($0.name)=http://127.0.0.1:\(try port(group, $0.name))"] }
        let process = try group.bus.start("group-\(UUID().uuidString.prefix(6))", [
            "group", "--group", group.group, "--etcd", group.etcd.endpoint.absoluteString, "--json", "--timeout", "2",
        ] + memberHTTP)
        try expect(process.waitForExit(timeout: .seconds(30)) == 0, "actionbus group failed: \(process.stderr)")
        return try JSONDecoder().decode(GroupReport.self, from: Data(process.stdout.utf8))
    }

    @Test func readinessFollowsTheLeaderAndTheGroupCommandReportsIt() async throws {
        let group = try await CoordinatorGroup(bus: try BusFixture(), http: true)
        let first = try #require(try await group.leader())
        let standbys = group.members.map(\.name).filter { $0 != first.member }
        let readyOnLeader = await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
            (try? Self.readyMembers(group)) == [first.member]
        }
        #expect(readyOnLeader, "/readyz was not 200 on the leader alone: \((try? Self.readyMembers(group)) ?? []) \(group.logs())")
        // A standby names the leader once its elector has read the key (it polls every 250 ms).
        let standbyPort = try Self.port(group, standbys[0])
        var notReady: (status: Int, body: String)?
        let namesLeader = await eventually(timeout: .seconds(10), interval: .milliseconds(100)) {
            notReady = httpRequest(port: standbyPort, path: "/readyz")
            return notReady?.body.contains(#""leader":"\#(first.member)""#) == true
        }
        #expect(namesLeader && notReady?.status == 503, "\(String(describing: notReady))")

        // The leader reports its replication once both standbys acknowledge it.
        var leaderStatus: MemberStatus?
        let replicating = await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
            leaderStatus = try? Self.status(group, first.member)
            return leaderStatus?.replication?.inSync == 2
        }
        #expect(replicating, "the leader's /api/group never showed 2 standbys in sync: \(String(describing: leaderStatus))")
        let leader = try #require(leaderStatus)
        #expect(leader.group == group.group && leader.member == first.member && leader.role == "leader")
        #expect(leader.epoch == first.epoch && leader.leader == first.member && leader.leaderEpoch == first.epoch)
        #expect(leader.replication?.configured == 2 && leader.replication?.required == 1 && leader.termsLed == 1)
        #expect(Set(leader.inSyncSet ?? []) == Set(group.members.map(\.name)) && leader.inSyncSet?.first == first.member)
        let standby = try #require(try Self.status(group, standbys[0]))
        #expect(standby.role == "standby" && standby.epoch == nil && standby.replication == nil && standby.termsLed == 0)
        #expect(standby.leader == first.member && standby.leaderEpoch == first.epoch, "\(standby)")
        #expect(Set(standby.inSyncSet ?? []) == Set(group.members.map(\.name)), "a standby reads the in-sync set from etcd")

        // The coordinator's own routes answer on the leader only.
        #expect(httpRequest(port: try Self.port(group, first.member), path: "/api/stats")?.status == 200)
        #expect(httpRequest(port: try Self.port(group, standbys[0]), path: "/api/stats")?.status == 503)
        #expect(httpRequest(port: try Self.port(group, first.member), path: "/")?.status == 200, "the dashboard")
        #expect(httpRequest(port: try Self.port(group, standbys[0]), path: "/")?.status == 503, "no dashboard on a standby")
        let leaderMetrics = try #require(httpRequest(port: try Self.port(group, first.member), path: "/metrics")).body
        for line in ["actionbus_group_leader 1.0", "actionbus_group_epoch \(first.epoch).0", "actionbus_group_terms_led_total 1", "actionbus_standbys 2.0"] {
            #expect(leaderMetrics.contains(line), "\(line) missing from the leader's /metrics:\n\(leaderMetrics)")
        }
        let standbyMetrics = try #require(httpRequest(port: try Self.port(group, standbys[0]), path: "/metrics")).body
        #expect(standbyMetrics.contains("actionbus_group_leader 0.0"), "\(standbyMetrics)")

        let before = try Self.groupReport(group)
        #expect(before.group == group.group && before.leader == first.member && before.epoch == first.epoch)
        #expect(before.members.map { $0.status?.role } == group.members.map { $0.name == first.member ? "leader" : "standby" })

        let killed = try #require(group.processes[first.member])
        killed.signal(SIGKILL)
        try expect(killed.waitForExit(timeout: .seconds(10)) != nil, "the leader did not die")
        let second = try #require(await group.newLeader(after: first), "no member took over: \(group.logs())")
        let readyOnSecond = await eventually(timeout: .seconds(20), interval: .milliseconds(100)) {
            (try? Self.readyMembers(group)) == [second.member]
        }
        #expect(readyOnSecond, "/readyz did not move to \(second.member): \((try? Self.readyMembers(group)) ?? []) \(group.logs())")
        let newLeader = try #require(try Self.status(group, second.member))
        #expect(newLeader.role == "leader" && newLeader.epoch == second.epoch && newLeader.termsLed == 1 && newLeader.leadershipChanges >= 2)

        let after = try Self.groupReport(group)
        #expect(after.leader == second.member && after.epoch == second.epoch)
        let gone = try #require(after.members.first { $0.name == first.member })
        #expect(gone.status == nil && gone.error != nil, "the killed member is reported unreachable")
        #expect(after.members.first { $0.name == second.member }?.status?.role == "leader")
    }
}
