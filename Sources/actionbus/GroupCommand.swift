import ActionCoordinator
import ArgumentParser
import Foundation
import GroupLeadership

/// `actionbus group`: a coordinator group as etcd records it (who leads, at which epoch, the
/// in-sync set), and as each member says over HTTP when given `--member-http`.
struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group", abstract: "Print a coordinator group's leader, epoch and in-sync set, and each member's role and replication."
    )

    @Option(help: "The group's name (its keys are under /actionbus/<group>/).")
    var group: String
    @Option(help: ArgumentHelp("etcd client URLs of one etcd cluster, comma-separated.", valueName: "url,url"))
    var etcd: String
    @Option(help: ArgumentHelp(
        "A member's HTTP side (its --http) as NAME=URL; repeat for each member to ask.",
        discussion: "Each is asked for /api/group: its role, epoch, replication and terms led.",
        valueName: "name=url"
    ))
    var memberHttp: [String] = []
    @Option(help: "Seconds to wait for etcd and for each member.")
    var timeout: Double = 3
    @Flag(help: "Print the JSON report.")
    var json = false

    func validate() throws {
        guard !group.isEmpty, !group.contains("/") else { throw ValidationError("--group takes a name without '/'") }
        _ = try GroupOptions.etcdEndpoints(etcd)
        _ = try memberURLs()
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func memberURLs() throws -> [(name: String, url: URL)] {
        try memberHttp.map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, let url = URL(string: parts[1]), url.scheme == "http", url.host != nil else {
                throw ValidationError("--member-http takes NAME=http://HOST:PORT (a=http://10.0.0.1:8080), not \(text)")
            }
            return (parts[0], url)
        }
    }

    func run() async throws {
        let wait = Duration.milliseconds(Int64(timeout * 1000))
        let client = EtcdClient(endpoints: try GroupOptions.etcdEndpoints(etcd), requestTimeout: wait)
        var report: GroupReport
        do {
            report = try await Self.readEtcd(client, group: group)
        } catch {
            printError("error: cannot read the group from etcd: \(error)")
            throw ExitCode(2)
        }
        let members = try memberURLs()
        report.members = await withTaskGroup(of: (Int, GroupReport.Member).self) { tasks in
            for (index, member) in members.enumerated() {
                tasks.addTask { (index, await Self.ask(member.name, at: member.url, timeout: wait)) }
            }
            var answers: [(Int, GroupReport.Member)] = []
            for await answer in tasks { answers.append(answer) }
            return answers.sorted { $0.0 < $1.0 }.map(\.1)
        }
        if json { try printJSON(report) } else { print(report.text, terminator: "") }
    }

    /// The leader key (leader, epoch, and its lease's time left) and the in-sync set.
    static func readEtcd(_ client: EtcdClient, group: String) async throws -> GroupReport {
        let leader = try await client.range(.key(LeaderElector.Configuration.leaderKey(group: group))).first.map(LeaderRecord.init)
        let inSync = try await client.range(.key(CampaignCondition.inSyncKey(group: group))).first
        var remaining: Int64?
        if let leader {
            // The lease may expire between the reads: then its time left is unknown, not an error.
            remaining = try? await client.timeToLive(leaseID: leader.leaseID).remainingSeconds
        }
        return GroupReport(
            group: group, leader: leader?.member, epoch: leader?.epoch, leaseRemainingSeconds: remaining,
            inSyncSet: inSync.flatMap { try? JSONDecoder().decode([String].self, from: $0.value) }, members: []
        )
    }

    /// Member `name`'s `/api/group`, or why it did not answer.
    static func ask(_ name: String, at url: URL, timeout: Duration) async -> GroupReport.Member {
        var member = GroupReport.Member(name: name, url: url.absoluteString)
        do {
            let (status, body) = try await PlainHTTP.get(url.appendingPathComponent("api/group"), timeout: timeout)
            guard status == 200 else {
                member.error = "HTTP \(status): \(String(decoding: body.prefix(200), as: UTF8.self))"
                return member
            }
            member.status = try JSONDecoder().decode(GroupMemberStatus.self, from: body)
        } catch {
            member.error = "\(error)"
        }
        return member
    }
}
