import Foundation

/// A coordinator group member's settings: the group, etcd, every member's replication
/// endpoint, and the coordinator it runs while it leads.
///
/// ```swift
/// var group = GroupConfiguration(
///     group: "orders", name: "a", dataDirectory: "/var/lib/actionbus",
///     etcdEndpoints: [URL(string: "http://etcd-1:2379")!],
///     members: [.init(name: "a", replicationEndpoint: "tcp://10.0.0.1:5560"),
///               .init(name: "b", replicationEndpoint: "tcp://10.0.0.2:5560"),
///               .init(name: "c", replicationEndpoint: "tcp://10.0.0.3:5560")]
/// )
/// group.coordinator.clientsEndpoint = "tcp://10.0.0.1:5555"
/// ```
public struct GroupConfiguration: Sendable {
    /// One member: its name (unique in the group) and where its standby listens.
    public struct Member: Equatable, Sendable {
        public var name: String
        public var replicationEndpoint: String

        public init(name: String, replicationEndpoint: String) {
            self.name = name
            self.replicationEndpoint = replicationEndpoint
        }
    }

    /// The group's name: its keys in etcd are under `/actionbus/<group>/`.
    public var group: String
    /// This member's name, one of `members`.
    public var name: String
    /// This member's journal (its own copy, on its own disk).
    public var dataDirectory: String
    /// etcd's client URLs (`http://host:2379`), members of one etcd cluster.
    public var etcdEndpoints: [URL]
    /// Every member, this one included, in the same order on every member: the first one
    /// starts a new group (only it may lead before any in-sync set was recorded).
    public var members: [Member]
    /// Where this member's standby binds, when not its own `members` endpoint (which others
    /// connect to): `tcp://*:5560` behind a DNS name or a NAT.
    public var replicationListen: String?
    /// Where clients reach this member's clients endpoint, published in etcd for the other
    /// members: while this member leads, a member that does not forwards Majordomo clients
    /// there and names it in its NOT-LEADER answers. `nil`: the clients endpoint, a wildcard
    /// host (`*`, `0.0.0.0`) replaced by the host of this member's `members` endpoint (which
    /// the other members reach).
    public var advertisedClientsEndpoint: String?
    /// Where workers reach this member's workers endpoint, published in etcd for the other
    /// members to name in their NOT-LEADER answers while this member leads. `nil`: the workers
    /// endpoint, a wildcard host replaced as for ``advertisedClientsEndpoint``.
    public var advertisedWorkersEndpoint: String?
    /// The etcd lease's time to live, in seconds: a leader that cannot renew it stops serving
    /// within it, and a successor takes over after it.
    public var leaseTTLSeconds: Int64 = 3
    /// In-sync standbys a leader needs to accept new requests; with fewer it refuses them
    /// `unavailable` (accepted requests keep running). 0 chooses availability: a leader alone
    /// accepts, and what it accepts then is lost with its host.
    public var minimumInSyncStandbys = 1
    /// The coordinator this member runs while it leads (its endpoints, limits and standby
    /// timeout). Its data directory and standbys are set from the group's.
    public var coordinator = CoordinatorConfiguration()

    public init(group: String, name: String, dataDirectory: String, etcdEndpoints: [URL], members: [Member]) {
        self.group = group
        self.name = name
        self.dataDirectory = dataDirectory
        self.etcdEndpoints = etcdEndpoints
        self.members = members
    }

    /// Where this member's standby listens.
    var ownReplicationEndpoint: String {
        replicationListen ?? members.first { $0.name == name }?.replicationEndpoint ?? ""
    }

    /// What this member publishes as its clients endpoint; `nil` when neither it nor a
    /// default can be told (the clients and replication endpoints both have wildcard hosts).
    package var clientsEndpointToAdvertise: String? {
        advertisedClientsEndpoint ?? reachable(coordinator.clientsEndpoint)
    }

    /// What this member publishes as its workers endpoint, by the same rule.
    package var workersEndpointToAdvertise: String? {
        advertisedWorkersEndpoint ?? reachable(coordinator.workersEndpoint)
    }

    /// `endpoint` as the other members reach it: a wildcard host replaced by the host of this
    /// member's replication endpoint; `nil` when that has a wildcard host too.
    private func reachable(_ endpoint: String) -> String? {
        guard let (scheme, host, port) = Self.parts(of: endpoint) else { return endpoint }
        guard Self.isWildcard(host) else { return endpoint }
        guard let replication = members.first(where: { $0.name == name })?.replicationEndpoint,
              let (_, replicationHost, _) = Self.parts(of: replication), !Self.isWildcard(replicationHost) else { return nil }
        return "\(scheme)://\(replicationHost):\(port)"
    }

    /// A `tcp://host:port` endpoint's parts; `nil` for other transports (`ipc://`, `inproc://`).
    private static func parts(of endpoint: String) -> (scheme: String, host: String, port: String)? {
        guard endpoint.hasPrefix("tcp://"), let colon = endpoint.lastIndex(of: ":"), colon > endpoint.index(endpoint.startIndex, offsetBy: 5) else {
            return nil
        }
        let host = endpoint[endpoint.index(endpoint.startIndex, offsetBy: 6)..<colon]
        return ("tcp", String(host), String(endpoint[endpoint.index(after: colon)...]))
    }

    private static func isWildcard(_ host: String) -> Bool {
        ["*", "0.0.0.0", "[::]", "::", "[*]"].contains(host)
    }

    func validate() throws(GroupConfigurationError) {
        guard !group.isEmpty, !group.contains("/") else { throw GroupConfigurationError("the group name must be non-empty without '/': \(group)") }
        guard !etcdEndpoints.isEmpty else { throw GroupConfigurationError("a group needs at least one etcd endpoint") }
        guard Set(members.map(\.name)).count == members.count else {
            throw GroupConfigurationError("member names must be unique: \(members.map(\.name))")
        }
        guard members.contains(where: { $0.name == name }) else {
            throw GroupConfigurationError("this member (\(name)) is not among the members: \(members.map(\.name))")
        }
        guard leaseTTLSeconds >= 2 else { throw GroupConfigurationError("the lease's TTL must be at least 2 seconds") }
        guard (0..<members.count).contains(minimumInSyncStandbys) else {
            throw GroupConfigurationError("--min-in-sync-standbys must be from 0 to \(members.count - 1) with \(members.count) members")
        }
    }
}

/// Why a group member cannot start.
public struct GroupConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
