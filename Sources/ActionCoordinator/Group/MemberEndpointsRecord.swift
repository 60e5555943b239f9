import ActionWire
import Foundation
import GroupLeadership

/// Where each member of a group serves clients and workers, as the other members reach it:
/// kept in etcd under `/actionbus/<group>/clients/<member>` and `/actionbus/<group>/workers/<member>`,
/// written by each member as a term begins. A member that does not lead reads the leader's, to
/// forward Majordomo clients there and to name it in its NOT-LEADER answers.
struct MemberEndpointsRecord: Sendable {
    /// The member's endpoint for one kind of peer.
    enum Role: String, Sendable {
        case clients
        case workers
    }

    let client: EtcdClient
    let group: String

    static func key(group: String, member: String, role: Role) -> String {
        "/actionbus/\(group)/\(role.rawValue)/\(member)"
    }

    /// Publishes `endpoint` as `member`'s for `role`; `false` when etcd did not take it.
    func publish(_ endpoint: String, role: Role, for member: String) async -> Bool {
        (try? await client.put(Self.key(group: group, member: member, role: role), value: Data(endpoint.utf8))) != nil
    }

    /// The endpoint `member` published for `role`; `nil` when it published none, etcd cannot be
    /// read, or it breaks the wire's name rule (NOT-LEADER could not carry it).
    func endpoint(of member: String, role: Role) async -> String? {
        guard let published = try? await client.range(.key(Self.key(group: group, member: member, role: role))).first,
              (try? WireName.check(published.text, field: "endpoint")) != nil else { return nil }
        return published.text
    }
}
