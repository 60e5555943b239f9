import Foundation
import GroupLeadership

/// Where each member of a group serves clients, as the other members reach it: kept in etcd
/// under `/actionbus/<group>/clients/<member>`, written by each member as a term begins. A
/// member that does not lead reads the leader's, to forward Majordomo clients there.
struct MemberClientsRecord: Sendable {
    let client: EtcdClient
    let group: String

    static func key(group: String, member: String) -> String {
        "/actionbus/\(group)/clients/\(member)"
    }

    /// Publishes `endpoint` as `member`'s; `false` when etcd did not take it.
    func publish(_ endpoint: String, for member: String) async -> Bool {
        (try? await client.put(Self.key(group: group, member: member), value: Data(endpoint.utf8))) != nil
    }

    /// The clients endpoint `member` published; `nil` when it published none or etcd cannot be read.
    func endpoint(of member: String) async -> String? {
        guard let published = try? await client.range(.key(Self.key(group: group, member: member))).first else { return nil }
        return published.text
    }
}
