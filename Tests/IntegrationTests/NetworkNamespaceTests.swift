import ActionBusTestSupport
import Foundation
import Testing

/// Several hosts on one machine: network namespaces, each with its own address, joined by a
/// bridge (`ip netns`, veth pairs). The coordinator runs in one, workers in three others; a
/// worker's link is cut and restored under load.
@Suite("Several hosts (network namespaces)", .serialized, .timeLimit(.minutes(4)))
struct NetworkNamespaceTests {
    /// Whether this machine lets the tests make namespaces (root and iproute2).
    static let namespacesAllowed: Bool = {
        let probe = "abprobe\(getpid())"
        guard (try? Self.ip(["netns", "add", probe])) != nil else { return false }
        _ = try? Self.ip(["netns", "del", probe])
        return true
    }()

    @discardableResult
    static func ip(_ arguments: [String]) throws -> String {
        let (status, text) = try SpawnedProcess.run("/usr/bin/env", ["ip"] + arguments)
        guard status == 0 else { throw FixtureError(description: "ip \(arguments.joined(separator: " ")): \(text)") }
        return text
    }

    /// A bridge and the namespaces on it; removed, every one, when it goes.
    final class Network {
        // Unseeded on purpose: names that no other run on this machine uses, not test inputs.
        let name = "ab" + String(UInt32.random(in: 0..<UInt32.max), radix: 16)
        let subnet = "10.\(Int.random(in: 100...250)).\(Int.random(in: 0...250))"
        private(set) var hosts: [String] = []

        init() throws {
            try NetworkNamespaceTests.ip(["link", "add", "\(name)br", "type", "bridge"])
            try NetworkNamespaceTests.ip(["link", "set", "\(name)br", "up"])
        }

        /// Host `index`'s address.
        func address(_ index: Int) -> String { "\(subnet).\(index)" }
        func namespace(_ index: Int) -> String { "\(name)h\(index)" }
        /// The host's end of the link, in the root namespace: setting it down cuts the host off.
        func link(_ index: Int) -> String { "\(name)v\(index)" }

        func addHost(_ index: Int) throws {
            let namespace = namespace(index)
            try NetworkNamespaceTests.ip(["netns", "add", namespace])
            hosts.append(namespace)
            try NetworkNamespaceTests.ip(["link", "add", link(index), "type", "veth", "peer", "name", "eth0", "netns", namespace])
            try NetworkNamespaceTests.ip(["link", "set", link(index), "master", "\(name)br", "up"])
            try NetworkNamespaceTests.ip(["-n", namespace, "addr", "add", "\(address(index))/24", "dev", "eth0"])
            try NetworkNamespaceTests.ip(["-n", namespace, "link", "set", "eth0", "up"])
            try NetworkNamespaceTests.ip(["-n", namespace, "link", "set", "lo", "up"])
        }

        func cut(_ index: Int) throws { try NetworkNamespaceTests.ip(["link", "set", link(index), "down"]) }
        func restore(_ index: Int) throws { try NetworkNamespaceTests.ip(["link", "set", link(index), "up"]) }

        deinit {
            for namespace in hosts { _ = try? NetworkNamespaceTests.ip(["netns", "del", namespace]) }
            _ = try? NetworkNamespaceTests.ip(["link", "del", "\(name)br"])
        }
    }

    @Test(.enabled(if: namespacesAllowed, "network namespaces are not allowed here (needs root and iproute2): skipped"))
    func workersOnOtherHostsJoinLeaveAndRejoinUnderLoadWithNothingLost() throws {
        let network = try Network()
        for host in 1...4 { try network.addHost(host) }
        let bus = try BusFixture()
        let ip = "/usr/bin/env"
        func inHost(_ host: Int, _ arguments: [String]) -> [String] {
            ["ip", "netns", "exec", network.namespace(host), BusProcess.executable.path] + arguments
        }
        let coordinatorAddress = network.address(1)
        let clients = "tcp://\(coordinatorAddress):5555", workers = "tcp://\(coordinatorAddress):5556"
        let coordinator = try bus.startProgram("coordinator", ip, inHost(1, [
            "coordinator", "--clients", clients, "--workers", workers, "--outcomes", "tcp://\(coordinatorAddress):5557",
            "--no-journal", "--heartbeat-ms", "300", "--log-format", "json",
        ]))
        try expect(waitUntil { !coordinator.logRecords(withField: "endpoint.clients").isEmpty }, "no coordinator: \(coordinator.stderr)")
        func startWorker(_ host: Int) throws -> BusProcess {
            let name = "w\(host)"
            let worker = try bus.startProgram(name, ip, inHost(host, [
                "worker", "--examples", "--fault-injection", "--coordinator", workers, "--name", name, "--credits", "8", "--heartbeat-ms", "300",
            ]))
            return worker
        }
        /// Runs a query command on the coordinator's host and returns its JSON.
        func query(_ command: String) throws -> Data {
            let process = try bus.startProgram("\(command)-\(UUID().uuidString.prefix(4))", ip,
                                               inHost(1, [command, "--json", "--timeout", "5", "--coordinator", clients]))
            try expect(process.waitForExit() == 0, "\(command) failed: \(process.stderr)")
            return Data(process.stdout.utf8)
        }
        func listedWorkers() throws -> [ListedWorker] {
            try JSONDecoder().decode(ListedWorker.Report.self, from: query("workers")).workers
        }
        func listed(_ name: String) throws -> ListedWorker? { try listedWorkers().first { $0.name == name } }
        func isReady(_ name: String) -> Bool { (try? listed(name))?.isReady ?? false }
        func running(_ name: String) throws -> Int? { try listed(name)?.inFlight }
        func statistics() throws -> [String: Int] { try JSONDecoder().decode([String: Int].self, from: query("stats")) }

        _ = try startWorker(2)
        _ = try startWorker(3)
        try expect(waitUntil(interval: .milliseconds(100)) { isReady("w2") && isReady("w3") }, "w2 and w3 did not register: \(coordinator.stderr)")

        // Load from the coordinator's host: more than the workers can hold at once.
        let load = try bus.startProgram("load", ip, inHost(1, [
            "perform", "Clock.sleep", "--input", #"{"ms":50}"#, "--count", "3000", "--concurrency", "200", "--json",
            "--timeout", "120", "--coordinator", clients,
        ]))
        try expect(waitUntil { (try? running("w2")) == 8 }, "the load never reached w2")

        // A worker started later on another host gets work within a second of registering.
        _ = try startWorker(4)
        try expect(waitUntil(interval: .milliseconds(50)) { isReady("w4") }, "w4 did not register: \(coordinator.stderr)")
        try expect(waitUntil(timeout: .seconds(1), interval: .milliseconds(50)) { (try? running("w4")).flatMap { $0 } ?? 0 > 0 },
                   "w4 got no work within a second of registering")

        // Cut w2's link while it holds work: after the heartbeat expiry its requests are
        // requeued, and nothing is lost.
        try expect(waitUntil { (try? running("w2")).flatMap { $0 } ?? 0 > 0 }, "w2 held no work to lose")
        try network.cut(2)
        try expect(waitUntil(interval: .milliseconds(100)) {
            (try? statistics()["workersExpired"]) == 1 && (try? listedWorkers().contains { $0.name == "w2" }) == false
        }, "w2 was never declared lost: \(String(describing: try? statistics()))")
        #expect(load.waitForExit(timeout: .seconds(120)) == 0, "\(load.stderr)")
        let outcomes = try OutcomeLine.parse(load.stdoutLines)
        #expect(outcomes.count == 3000)
        #expect(Set(outcomes.map(\.request)).count == 3000, "each outcome once")
        let counters = try statistics()
        #expect(counters["redelivered", default: 0] > 0, "w2's requests were requeued: \(counters)")
        #expect(outcomes.allSatisfy { $0.outcome == "success" }, "nothing lost")
        #expect(Set(outcomes.map(\.worker)).isSuperset(of: ["w3", "w4"]))

        // Restore it: w2, which kept reconnecting while cut off, registers again.
        try network.restore(2)
        try expect(waitUntil(timeout: .seconds(30), interval: .milliseconds(200)) { isReady("w2") }, "w2 did not rejoin: \(coordinator.stderr)")
        // Work reaches it again (bounded: it may take a reconnection or two to settle).
        var servedAgain = false
        for round in 1...20 where !servedAgain {
            let after = try bus.startProgram("after-\(round)", ip, inHost(1, [
                "perform", "Clock.sleep", "--input", #"{"ms":50}"#, "--count", "48", "--concurrency", "48", "--json",
                "--coordinator", clients,
            ]))
            #expect(after.waitForExit(timeout: .seconds(60)) == 0, "\(after.stderr)")
            servedAgain = try OutcomeLine.parse(after.stdoutLines).contains { $0.worker == "w2" }
        }
        #expect(servedAgain, "w2 serves again: \(coordinator.stderr.suffix(2000))")
    }
}
