import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A single-member etcd started by a test: free loopback ports, a data directory of its own,
/// killed by PID when the test lets it go. It can be stopped, paused (SIGSTOP) and started
/// again on the same ports and data.
package final class EtcdServer: @unchecked Sendable {
    /// The etcd binary (Debian's `etcd-server`), if installed.
    package static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        return directories.map { "\($0)/etcd" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether the etcd tests run: etcd is installed, or ACTIONBUS_REQUIRE_ETCD says it must be
    /// (then a missing etcd fails them instead of skipping them).
    package static var testsEnabled: Bool {
        executable != nil || ProcessInfo.processInfo.environment["ACTIONBUS_REQUIRE_ETCD"] != nil
    }

    /// A fresh etcd for one test; throws when etcd is not installed.
    package static func startedForTest() async throws -> EtcdServer {
        guard let executable else { throw FixtureError(description: "etcd is not installed (apt-get install etcd-server)") }
        return try await EtcdServer(executable: executable)
    }

    package let clientPort: Int
    package let peerPort: Int
    package let directory: URL
    private let executable: String
    package private(set) var process: BusProcess?
    private var starts = 0

    package var endpoint: URL { URL(string: "http://127.0.0.1:\(clientPort)")! }

    /// Starts etcd and waits until it answers /health.
    package init(executable: String) async throws {
        self.executable = executable
        clientPort = try freeLoopbackPort()
        peerPort = try freeLoopbackPort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("actionbus-etcd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try await start()
    }

    deinit {
        if let process, process.isRunning {
            process.signal(SIGKILL)
            process.waitForExit(timeout: .seconds(5))
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts (or starts again) etcd on the same ports and data directory, and waits until healthy.
    package func start() async throws {
        starts += 1
        let peer = "http://127.0.0.1:\(peerPort)"
        let client = "http://127.0.0.1:\(clientPort)"
        process = try BusProcess(
            name: "etcd-\(starts)",
            arguments: [
                "--name", "t", "--data-dir", directory.appendingPathComponent("data").path,
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "t=\(peer)",
            ],
            directory: directory, program: executable
        )
        let clientPort = clientPort
        let healthy = await eventually(timeout: .seconds(20), interval: .milliseconds(50)) {
            httpRequest(port: clientPort, path: "/health", timeout: 1).map { $0.status == 200 && $0.body.contains("true") } ?? false
        }
        try expect(healthy, "etcd did not become healthy on port \(clientPort): \(process?.stderr.suffix(2_000) ?? "")")
    }

    /// Kills etcd (SIGKILL) and waits until it has exited.
    package func kill() throws {
        process?.signal(SIGKILL)
        try expect(process?.waitForExit(timeout: .seconds(10)) != nil, "etcd did not exit")
    }

    /// Freezes etcd (SIGSTOP): connections stay open and nothing answers.
    package func pause() { process?.signal(SIGSTOP) }

    package func resume() { process?.signal(SIGCONT) }
}
