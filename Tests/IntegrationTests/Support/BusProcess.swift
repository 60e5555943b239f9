import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `actionbus` process started by a test, with its output captured to files.
final class BusProcess: @unchecked Sendable {
    let name: String
    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL

    /// Starts `actionbus` with `arguments`; with `shellPrefix`, through `/bin/sh -c` running
    /// those commands first (e.g. `ulimit`), then `exec`ing `actionbus`; with `program`, that
    /// program instead of `actionbus`.
    init(
        name: String, arguments: [String], directory: URL, environment: [String: String] = [:], shellPrefix: String? = nil,
        program: String? = nil
    ) throws {
        self.name = name
        stdoutURL = directory.appendingPathComponent("\(name).out")
        stderrURL = directory.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        if let shellPrefix {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\(shellPrefix); exec \"$0\" \"$@\"", BusProcess.executable.path] + arguments
        } else {
            process.executableURL = program.map { URL(fileURLWithPath: $0) } ?? BusProcess.executable
            process.arguments = arguments
        }
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        process.environment = merged
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Whether the test stopped it with SIGSTOP and has not continued it.
    private(set) var isStopped = false

    /// Sends a signal to the process by PID.
    ///
    /// Foundation may report a SIGSTOPped child as no longer running, so a stopped process is
    /// signalled whatever `isRunning` says (otherwise SIGCONT and SIGKILL would never reach it).
    func signal(_ number: Int32) {
        guard process.isRunning || isStopped else { return }
        kill(pid, number)
        if number == SIGSTOP { isStopped = true }
        if number == SIGCONT || number == SIGKILL { isStopped = false }
    }

    /// Waits for the process to exit, up to `timeout`; returns its status, or nil if it still runs.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(30)) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// The `actionbus` binary built beside the test bundle.
    static let executable: URL = {
        #if os(Linux)
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        #else
        // No /proc on Darwin, and the test process may be xctest or swiftpm-testing-helper: the
        // directory of the `.xctest` bundle that holds this class is the build directory.
        let directory = Bundle(for: BusProcess.self).bundleURL.deletingLastPathComponent()
        #endif
        return directory.appendingPathComponent("actionbus")
    }()
}

/// The processes of one test: started with free ports, killed by PID when the test ends.
final class BusFixture: @unchecked Sendable {
    let directory: URL
    let clientsPort: Int, workersPort: Int, outcomesPort: Int
    private let processes = Locked<[BusProcess]>([])

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("actionbus-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        clientsPort = try freeLoopbackPort()
        workersPort = try freeLoopbackPort()
        outcomesPort = try freeLoopbackPort()
    }

    deinit {
        stopAll()
        try? FileManager.default.removeItem(at: directory)
    }

    var clients: String { "tcp://127.0.0.1:\(clientsPort)" }
    var workers: String { "tcp://127.0.0.1:\(workersPort)" }
    var outcomes: String { "tcp://127.0.0.1:\(outcomesPort)" }

    /// Starts `actionbus` with `arguments` (after `shellPrefix`'s commands, when given).
    @discardableResult
    func start(_ name: String, _ arguments: [String], shellPrefix: String? = nil) throws -> BusProcess {
        let process = try BusProcess(name: name, arguments: arguments, directory: directory, shellPrefix: shellPrefix)
        processes.withLock { $0.append(process) }
        return process
    }

    /// Starts another program (a helper script), killed by PID with the rest.
    @discardableResult
    func startProgram(_ name: String, _ program: String, _ arguments: [String]) throws -> BusProcess {
        let process = try BusProcess(name: name, arguments: arguments, directory: directory, program: program)
        processes.withLock { $0.append(process) }
        return process
    }

    /// The journal directory coordinators of this fixture use unless told otherwise.
    var dataDirectory: String { directory.appendingPathComponent("data").path }

    /// Starts a coordinator (journaling in ``dataDirectory`` unless `extra` says otherwise) and
    /// waits until it accepts connections.
    @discardableResult
    func startCoordinator(_ extra: [String] = [], name: String = "coordinator", shellPrefix: String? = nil) throws -> BusProcess {
        let journal = extra.contains("--no-journal") || extra.contains("--data-dir") ? [] : ["--data-dir", dataDirectory]
        let coordinator = try start(name, ["coordinator", "--clients", clients, "--workers", workers, "--outcomes", outcomes] + journal + extra,
                                    shellPrefix: shellPrefix)
        // A coordinator that exits (a port taken meanwhile, say) is told at once, not after the wait.
        _ = waitUntil { coordinator.stderr.contains("coordinator listening") || !coordinator.process.isRunning }
        try expect(coordinator.stderr.contains("coordinator listening"), "coordinator did not start: \(coordinator.stderr)")
        return coordinator
    }

    /// Starts a worker named `name` and waits until the coordinator has registered it.
    @discardableResult
    func startWorker(_ name: String, coordinator: BusProcess, _ extra: [String] = []) throws -> BusProcess {
        let worker = try start(name, ["worker", "--examples", "--fault-injection", "--coordinator", workers, "--name", name] + extra)
        try expect(waitUntil { coordinator.stderr.contains("worker.name=\(name) [ActionCoordinator] worker registered") },
                   "worker \(name) did not register: \(worker.stderr)")
        return worker
    }

    /// Runs `actionbus perform` to completion and returns the process.
    func perform(_ action: String, _ extra: [String] = [], timeout: Duration = .seconds(60)) throws -> BusProcess {
        let process = try start("perform-\(UUID().uuidString.prefix(6))", ["perform", action, "--coordinator", clients] + extra)
        try expect(process.waitForExit(timeout: timeout) != nil, "perform \(action) did not finish")
        return process
    }

    /// Kills every process this fixture started, by PID.
    func stopAll() {
        for process in processes.withLock({ $0 }) where process.process.isRunning || process.isStopped {
            process.signal(SIGKILL)
            process.waitForExit(timeout: .seconds(5))
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw FixtureError(description: message()) }
}

/// Polls `condition` until it holds or `timeout` passes.
/// Polls `condition` every `interval` until it holds or `timeout` passes; a condition that
/// starts a process (a stats query) should poll less often than one that reads a file.
func waitUntil(
    timeout: Duration = .seconds(20), interval: Duration = .milliseconds(20), _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
    }
    return try condition()
}

/// One line of `--json` output.
struct OutcomeLine: Decodable {
    struct ErrorInfo: Decodable { let code: String; let message: String }
    let request: String
    let action: String
    let session: String
    let outcome: String
    let output: [String: JSONValue]?
    let error: ErrorInfo?
    let worker: String
    let closeActionStack: Bool
    let sequence: UInt64?

    static func parse(_ lines: [String]) throws -> [OutcomeLine] {
        try lines.map { try JSONDecoder().decode(OutcomeLine.self, from: Data($0.utf8)) }
    }
}

/// A JSON scalar from an action's output.
enum JSONValue: Decodable, Equatable {
    case number(Double), string(String), bool(Bool)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let bool = try? container.decode(Bool.self) { self = .bool(bool) }
        else { self = .string(try container.decode(String.self)) }
    }

    var number: Double? { if case .number(let value) = self { return value } else { return nil } }
    var string: String? { if case .string(let value) = self { return value } else { return nil } }
}
