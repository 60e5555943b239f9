import ActionCoordinator
import ArgumentParser
import Foundation

/// A coordinator that is one member of a group led by whoever etcd elects.
struct GroupOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Run as a member of this coordinator group (needs --etcd, --name and --member).",
        discussion: """
            A member is a standby keeping a synced copy of the leader's journal until etcd elects it; then it \
            serves as the coordinator on --clients, --workers and --outcomes, with the other members as its standbys.
            """
    ))
    var group: String?
    @Option(help: ArgumentHelp("etcd client URLs of one etcd cluster, comma-separated.", valueName: "url,url"))
    var etcd: String?
    @Option(help: "This member's name, one of the --member names.")
    var name: String?
    @Option(help: ArgumentHelp(
        "A member as NAME=REPLICATION_ENDPOINT; repeat for every member, this one included, in the same order on all.",
        discussion: "The first member starts a new group. A member's standby listens on its endpoint.",
        valueName: "name=endpoint"
    ))
    var member: [String] = []
    @Option(help: "Where this member's standby binds, when not its own --member endpoint (tcp://*:5560 behind a DNS name).")
    var replicationListen: String?
    @Option(help: ArgumentHelp(
        "Where clients reach this member's --clients endpoint, for the other members to forward Majordomo clients to it while it leads.",
        discussion: "Default: --clients, a wildcard host replaced by the host of this member's --member endpoint."
    ))
    var advertiseClients: String?
    @Option(help: ArgumentHelp(
        "Where workers reach this member's --workers endpoint, for the other members to name while it leads.",
        discussion: "Default: --workers, a wildcard host replaced by the host of this member's --member endpoint."
    ))
    var advertiseWorkers: String?
    @Option(help: "Seconds of the etcd lease: a leader that cannot renew it stops serving within it.")
    var leaseTtl: Int64 = 3
    @Option(help: "In-sync standbys a leader needs to accept new requests (0: a leader alone accepts, which its host's loss loses).")
    var minInSyncStandbys = 1

    var isGroup: Bool { group != nil }

    func validate() throws {
        guard let group else {
            if etcd != nil || name != nil || !member.isEmpty || replicationListen != nil || advertiseClients != nil
                || advertiseWorkers != nil {
                throw ValidationError("--etcd, --name, --member, --replication-listen, --advertise-clients and --advertise-workers go with --group")
            }
            return
        }
        guard etcd != nil, name != nil, !member.isEmpty else {
            throw ValidationError("--group \(group) needs --etcd, --name and --member (one per member)")
        }
        _ = try members()
        _ = try etcdEndpoints()
    }

    func members() throws -> [GroupConfiguration.Member] {
        try member.map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--member takes NAME=ENDPOINT (a=tcp://10.0.0.1:5560), not \(text)")
            }
            return GroupConfiguration.Member(name: parts[0], replicationEndpoint: parts[1])
        }
    }

    func etcdEndpoints() throws -> [URL] {
        try Self.etcdEndpoints(etcd ?? "")
    }

    /// `--etcd`'s comma-separated `http://host:port` URLs (`actionbus group` takes them too).
    static func etcdEndpoints(_ argument: String) throws -> [URL] {
        try argument.split(separator: ",").map { text in
            guard let url = URL(string: String(text)), url.scheme == "http", url.host != nil else {
                throw ValidationError("--etcd takes http://host:port URLs, comma-separated, not \(text)")
            }
            return url
        }
    }

    /// The member's configuration, around the coordinator it runs while it leads.
    func configuration(coordinator: CoordinatorConfiguration, dataDirectory: String) throws -> GroupConfiguration {
        var configuration = GroupConfiguration(
            group: group ?? "", name: name ?? "", dataDirectory: dataDirectory, etcdEndpoints: try etcdEndpoints(), members: try members()
        )
        configuration.replicationListen = replicationListen
        configuration.advertisedClientsEndpoint = advertiseClients
        configuration.advertisedWorkersEndpoint = advertiseWorkers
        configuration.leaseTTLSeconds = leaseTtl
        configuration.minimumInSyncStandbys = minInSyncStandbys
        configuration.coordinator = coordinator
        return configuration
    }
}
