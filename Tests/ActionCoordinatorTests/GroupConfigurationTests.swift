import ActionCoordinator
import Foundation
import Testing

/// Group member configurations that cannot work are refused before the member talks to etcd.
@Suite("Group configuration")
struct GroupConfigurationTests {
    static func configuration(name: String = "a", members: [String] = ["a", "b", "c"]) -> GroupConfiguration {
        GroupConfiguration(
            group: "g", name: name, dataDirectory: "/tmp/unused", etcdEndpoints: [URL(string: "http://127.0.0.1:2379")!],
            members: members.enumerated().map { .init(name: $1, replicationEndpoint: "tcp://127.0.0.1:\(5560 + $0)") }
        )
    }

    @Test func aWorkableConfigurationIsAccepted() throws {
        _ = try GroupMember(configuration: Self.configuration())
    }

    @Test(arguments: [
        ("a member not in the list", configuration(name: "d")),
        ("two members of one name", configuration(members: ["a", "b", "a"])),
        ("more standbys required than there are", { var c = configuration(); c.minimumInSyncStandbys = 3; return c }()),
        ("a lease shorter than two seconds", { var c = configuration(); c.leaseTTLSeconds = 1; return c }()),
        ("a group name with a slash", { var c = configuration(); c.group = "a/b"; return c }()),
    ])
    func unworkableConfigurationsAreRefused(_ why: String, _ configuration: GroupConfiguration) {
        #expect(throws: GroupConfigurationError.self, "\(why)") { try GroupMember(configuration: configuration) }
    }

    /// What a member publishes for the others to forward Majordomo clients to.
    @Test func theClientsEndpointPublishedIsOneTheOtherMembersCanReach() {
        func advertised(clients: String, replication: String = "tcp://10.0.0.1:5560", explicit: String? = nil) -> String? {
            var configuration = GroupConfiguration(
                group: "g", name: "a", dataDirectory: "/tmp/unused", etcdEndpoints: [URL(string: "http://127.0.0.1:2379")!],
                members: [.init(name: "a", replicationEndpoint: replication), .init(name: "b", replicationEndpoint: "tcp://10.0.0.2:5560")]
            )
            configuration.coordinator.clientsEndpoint = clients
            configuration.advertisedClientsEndpoint = explicit
            return configuration.clientsEndpointToAdvertise
        }
        #expect(advertised(clients: "tcp://10.0.0.1:5555") == "tcp://10.0.0.1:5555")
        #expect(advertised(clients: "tcp://*:5555") == "tcp://10.0.0.1:5555", "a wildcard takes the member's own host")
        #expect(advertised(clients: "tcp://0.0.0.0:7000", replication: "tcp://member-a.bus:5560") == "tcp://member-a.bus:7000")
        #expect(advertised(clients: "tcp://*:5555", replication: "tcp://*:5560") == nil, "nothing the others could reach")
        #expect(advertised(clients: "tcp://*:5555", explicit: "tcp://bus.example:5555") == "tcp://bus.example:5555")
        #expect(advertised(clients: "ipc:///run/actionbus/clients") == "ipc:///run/actionbus/clients")
    }

    /// The workers endpoint is published by the same rule, for NOT-LEADER to name.
    @Test func theWorkersEndpointPublishedFollowsTheSameRule() {
        var configuration = GroupConfiguration(
            group: "g", name: "a", dataDirectory: "/tmp/unused", etcdEndpoints: [URL(string: "http://127.0.0.1:2379")!],
            members: [.init(name: "a", replicationEndpoint: "tcp://member-a.bus:5560")]
        )
        configuration.coordinator.workersEndpoint = "tcp://*:5556"
        #expect(configuration.workersEndpointToAdvertise == "tcp://member-a.bus:5556")
        configuration.advertisedWorkersEndpoint = "tcp://nat.example:15556"
        #expect(configuration.workersEndpointToAdvertise == "tcp://nat.example:15556")
        #expect(configuration.clientsEndpointToAdvertise != "tcp://nat.example:15556", "each endpoint its own")
    }
}
