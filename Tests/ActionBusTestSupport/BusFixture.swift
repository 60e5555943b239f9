import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The processes of one test: started with free ports, killed by PID when the test ends.
///
/// Coordinators and workers it starts log one JSON object per line (`--log-format json`), so a
/// test that needs a fact only a log shows reads a metadata field, never the wording; and it
/// waits for them on structured signs: a coordinator's `endpoint.clients` field, a worker's
/// name in `actionbus workers --json`.
package final class BusFixture: @unchecked Sendable {
    package let directory: URL
    package let clientsPort: Int, workersPort: Int, outcomesPort: Int
    private let processes = Locked<[BusProcess]>([])
    private let extraQueryOptions = Locked<[String]>([])

    package init() throws {
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

    package var clients: String { "tcp://127.0.0.1:\(clientsPort)" }
    package var workers: String { "tcp://127.0.0.1:\(workersPort)" }
    package var outcomes: String { "tcp://127.0.0.1:\(outcomesPort)" }

    /// Options every query the fixture runs (`stats`, `workers`) and every subscriber it starts
    /// add: a CURVE client's keys when the coordinator wants them.
    package var queryOptions: [String] {
        get { extraQueryOptions.withLock { $0 } }
        set { extraQueryOptions.withLock { $0 = newValue } }
    }

    /// Starts `actionbus` with `arguments` (after `shellPrefix`'s commands, when given).
    @discardableResult
    package func start(_ name: String, _ arguments: [String], shellPrefix: String? = nil) throws -> BusProcess {
        let process = try BusProcess(name: name, arguments: arguments, directory: directory, shellPrefix: shellPrefix)
        processes.withLock { $0.append(process) }
        return process
    }

    /// Starts another program (a helper script), killed by PID with the rest.
    @discardableResult
    package func startProgram(_ name: String, _ program: String, _ arguments: [String]) throws -> BusProcess {
        let process = try BusProcess(name: name, arguments: arguments, directory: directory, program: program)
        processes.withLock { $0.append(process) }
        return process
    }

    /// The journal directory coordinators of this fixture use unless told otherwise.
    package var dataDirectory: String { directory.appendingPathComponent("data").path }

    /// Starts a coordinator (journaling in ``dataDirectory`` unless `extra` says otherwise,
    /// logging JSON) and waits until it has bound its sockets: its log's `endpoint.clients`.
    @discardableResult
    package func startCoordinator(_ extra: [String] = [], name: String = "coordinator", shellPrefix: String? = nil) throws -> BusProcess {
        let journal = extra.contains("--no-journal") || extra.contains("--data-dir") ? [] : ["--data-dir", dataDirectory]
        let coordinator = try start(name, ["coordinator", "--clients", clients, "--workers", workers, "--outcomes", outcomes, "--log-format", "json"]
                                        + journal + extra, shellPrefix: shellPrefix)
        // A coordinator that exits (a port taken meanwhile, say) is told at once, not after the wait.
        let listening = { !coordinator.logRecords(withField: "endpoint.clients").isEmpty }
        _ = waitUntil { listening() || !coordinator.process.isRunning }
        try expect(listening(), "coordinator did not start: \(coordinator.stderr)")
        return coordinator
    }

    /// Starts a worker named `name` (logging JSON) and waits until `actionbus workers` lists it
    /// as ready; `coordinator` is the one it registers with, watched so that its death ends the
    /// wait early.
    @discardableResult
    package func startWorker(_ name: String, coordinator: BusProcess, _ extra: [String] = []) throws -> BusProcess {
        let worker = try start(name, ["worker", "--examples", "--fault-injection", "--coordinator", workers, "--name", name,
                                      "--log-format", "json"] + extra)
        try awaitWorker(name, coordinator: coordinator, process: worker)
        return worker
    }

    /// Waits until `actionbus workers` lists a ready worker named `name` (registered, neither
    /// draining nor unreachable).
    package func awaitWorker(_ name: String, coordinator: BusProcess, process: BusProcess? = nil, timeout: Duration = .seconds(20)) throws {
        let registered = { (try? self.listedWorkers().contains { $0.name == name && $0.isReady }) ?? false }
        _ = waitUntil(timeout: timeout, interval: .milliseconds(100)) {
            registered() || !coordinator.isRunning || process.map { !$0.isRunning } ?? false
        }
        try expect(registered(), "worker \(name) did not register: \(process?.stderr ?? "") COORDINATOR: \(coordinator.stderr.suffix(3000))")
    }

    /// Starts `actionbus subscribe` on this fixture's outcomes endpoint with `arguments` and
    /// waits until the coordinator has confirmed the subscription.
    @discardableResult
    package func startSubscriber(_ name: String, _ arguments: [String] = []) throws -> BusProcess {
        // Its JSON log says when the coordinator confirmed the subscription (`subscription.endpoint`).
        let subscriber = try start(
            name, ["subscribe", "--outcomes", outcomes, "--log-format", "json", "--log-level", "info"] + arguments + queryOptions
        )
        let confirmed = { !subscriber.logRecords(withField: "subscription.endpoint").isEmpty }
        _ = waitUntil { confirmed() || !subscriber.process.isRunning }
        try expect(confirmed(), "\(name) did not subscribe: \(subscriber.stderr)")
        return subscriber
    }

    /// Runs `actionbus perform` to completion and returns the process.
    package func perform(_ action: String, _ extra: [String] = [], timeout: Duration = .seconds(60)) throws -> BusProcess {
        let process = try start("perform-\(UUID().uuidString.prefix(6))", ["perform", action, "--coordinator", clients] + extra)
        try expect(process.waitForExit(timeout: timeout) != nil, "perform \(action) did not finish")
        return process
    }

    /// Kills every process this fixture started, by PID.
    package func stopAll() {
        for process in processes.withLock({ $0 }) where process.process.isRunning || process.isStopped {
            process.signal(SIGKILL)
            process.waitForExit(timeout: .seconds(5))
        }
    }
}
