import ActionCoordinator
import Foundation

/// What `actionbus group` found: the group as etcd records it, and each member asked over
/// HTTP as it answered (or why it did not).
struct GroupReport: Codable, Equatable {
    /// One member's `/api/group`, or why it could not be read.
    struct Member: Codable, Equatable {
        var name: String
        var url: String
        var status: GroupMemberStatus?
        var error: String?
    }

    var group: String
    /// Who holds the leader key; `nil` when no one does (between leaders, or a new group).
    var leader: String?
    /// The leader key's create revision: the leader's epoch.
    var epoch: Int64?
    /// Seconds the leader's lease has left, if etcd said.
    var leaseRemainingSeconds: Int64?
    /// The in-sync set as recorded (the leader first); `nil` when never recorded.
    var inSyncSet: [String]?
    var members: [Member]

    /// The report as text: etcd's view, then a row per member asked.
    var text: String {
        var lines: [String] = []
        if let leader {
            let lease = leaseRemainingSeconds.map { " (lease: \($0) s left)" } ?? ""
            lines.append("group \(group): \(leader) leads at epoch \(epoch.map(String.init) ?? "?")\(lease)")
        } else {
            lines.append("group \(group): no leader")
        }
        lines.append("in sync: " + (inSyncSet.map { $0.joined(separator: " ") } ?? "never recorded"))
        var text = lines.joined(separator: "\n") + "\n"
        guard !members.isEmpty else { return text }
        var rows = [["MEMBER", "ROLE", "EPOCH", "LEADER SEEN", "STANDBYS IN SYNC", "ACK LAG", "TERMS LED", "LEADERSHIP CHANGES"]]
        var unreachable: [String] = []
        for member in members {
            guard let status = member.status else {
                rows.append([member.name, "unreachable"])
                unreachable.append("\(member.name) (\(member.url)): \(member.error ?? "no answer")")
                continue
            }
            let replication = status.replication.map { "\($0.inSync)/\($0.configured) (\($0.required) needed)" } ?? "-"
            rows.append([
                member.name, status.role.rawValue, status.epoch.map(String.init) ?? "-", status.leader ?? "-", replication,
                status.replication.map { "\($0.ackLagMicroseconds) µs" } ?? "-", String(status.termsLed), String(status.leadershipChanges),
            ])
        }
        text += "\n" + TableText.render(rows)
        // Below the table, so that a long reason does not widen its columns.
        return text + unreachable.map { $0 + "\n" }.joined()
    }
}
