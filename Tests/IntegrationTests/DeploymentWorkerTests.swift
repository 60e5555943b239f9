import ActionBusTestSupport
import Foundation
import Testing

/// The workers that deploy/ starts serve the example features and never `Fault.*`, which would
/// let any client crash or hang them.
@Suite(.timeLimit(.minutes(3)))
struct DeploymentWorkerTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Each deployment file's worker arguments (after the `actionbus` program), as it writes them.
    static func deployedWorkerArguments() throws -> [(file: String, arguments: [String])] {
        func read(_ path: String) throws -> String {
            try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        }
        /// The YAML flow sequence of strings after `key: [` (over several lines), as JSON.
        func flowSequence(after key: String, in text: String) throws -> [String] {
            let start = try #require(text.range(of: "\(key): [\"worker\""), "no \(key) running a worker")
            let open = try #require(text.range(of: "[", range: start))
            let end = try #require(text.range(of: "]", range: start.upperBound..<text.endIndex))
            let json = String(text[open.lowerBound..<end.upperBound])
            return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String])
        }
        let unit = try read("deploy/systemd/actionbus-worker@.service")
        let execStart = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        return [
            ("deploy/compose.yaml", try flowSequence(after: "command", in: try read("deploy/compose.yaml"))),
            ("deploy/kubernetes/workers.yaml", try flowSequence(after: "args", in: try read("deploy/kubernetes/workers.yaml"))),
            ("deploy/systemd/actionbus-worker@.service", execStart.split(separator: " ").dropFirst().map(String.init)),
        ]
    }

    /// `arguments` made runnable here: this bus's workers endpoint, a free HTTP port, no CURVE
    /// key files, the unit's variables filled in; everything else as deployed.
    static func runnable(_ arguments: [String], workers: String, name: String) throws -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--coordinator": result += [argument, workers]; index += 2
            case "--name": result += [argument, name]; index += 2
            case "--http": result += [argument, "127.0.0.1:\(try freeLoopbackPort())"]; index += 2
            case "--curve-secret-key", "--coordinator-key": index += 2
            case "${CREDITS}": result.append("64"); index += 1
            case _ where argument.hasPrefix("$"): index += 1
            default: result.append(argument); index += 1
            }
        }
        // A deployment without a name takes the host's: this test needs one it can look for.
        return result.contains("--name") ? result : result + ["--name", name]
    }

    @Test func everyDeployedWorkerServesTheExamplesButNoFaultAction() throws {
        let deployed = try Self.deployedWorkerArguments()
        #expect(deployed.count == 3)
        for (file, arguments) in deployed {
            #expect(arguments.first == "worker", "\(file)")
            #expect(!arguments.contains("--fault-injection"), "\(file) serves Fault.*")

            let bus = try BusFixture()
            let coordinator = try bus.startCoordinator(["--no-journal"])
            let name = "deployed-\(file.split(separator: "/").last!.prefix(8))"
            let worker = try bus.start("worker", try Self.runnable(arguments, workers: bus.workers, name: name))
            try bus.awaitWorker(name, coordinator: coordinator, process: worker)
            let echo = try bus.perform("Echo.say", ["--input", #"{"text":"deployed"}"#, "--json", "--timeout", "20"])
            #expect(echo.process.terminationStatus == 0, "\(file): Echo.say failed: \(echo.stdout) \(echo.stderr) \(worker.stderr)")

            // No worker serves it: it fails as a typo would, and the worker lives on.
            let crash = try bus.perform("Fault.crash", ["--json", "--timeout", "20"])
            let line = try #require(crash.stdoutLines.last.map { try JSONDecoder().decode(OutcomeLine.self, from: Data($0.utf8)) },
                                    "\(file): \(crash.stderr)")
            #expect(line.outcome == "failure" && line.error?.code == "noWorker", "\(file): \(crash.stdout)")
            #expect(worker.process.isRunning, "\(file): the worker died")
        }
    }

    /// Without `--examples` the command serves nothing: it refuses to start (a usage error) and
    /// never registers, so no example action is served by a worker nobody asked for.
    @Test func aWorkerWithoutExamplesServesNothing() throws {
        let bus = try BusFixture()
        try bus.startCoordinator(["--no-journal"])
        let worker = try bus.start("worker", ["worker", "--coordinator", bus.workers, "--name", "plain"])
        let status = worker.waitForExit(timeout: .seconds(20))
        #expect(status != nil && status != 0, "a worker without --examples kept running")
        let listed = try bus.start("workers", ["workers", "--json", "--coordinator", bus.clients])
        #expect(listed.waitForExit(timeout: .seconds(10)) == 0)
        #expect(!listed.stdout.contains("plain"), "\(listed.stdout)")
    }
}
