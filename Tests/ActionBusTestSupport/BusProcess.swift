import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `actionbus` process started by a test, with its output captured to files.
package final class BusProcess: @unchecked Sendable {
    package let name: String
    package let process: SpawnedProcess
    package let stdoutURL: URL
    package let stderrURL: URL

    /// Starts `actionbus` with `arguments`; with `shellPrefix`, through `/bin/sh -c` running
    /// those commands first (e.g. `ulimit`), then `exec`ing `actionbus`; with `program`, that
    /// program instead of `actionbus`.
    package init(
        name: String, arguments: [String], directory: URL, environment: [String: String] = [:], shellPrefix: String? = nil,
        program: String? = nil
    ) throws {
        self.name = name
        stdoutURL = directory.appendingPathComponent("\(name).out")
        stderrURL = directory.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let executable: String
        let allArguments: [String]
        if let shellPrefix {
            executable = "/bin/sh"
            allArguments = ["-c", "\(shellPrefix); exec \"$0\" \"$@\"", BusProcess.executable.path] + arguments
        } else {
            executable = program ?? BusProcess.executable.path
            allArguments = arguments
        }
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        process = try SpawnedProcess(
            executable: executable, arguments: allArguments, environment: merged, standardOutput: stdoutURL.path,
            standardError: stderrURL.path)
    }

    package var pid: Int32 { process.processIdentifier }
    package var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    package var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    package var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Whether the test stopped it with SIGSTOP and has not continued it.
    package private(set) var isStopped = false

    /// Sends a signal to the process by PID.
    ///
    /// A stopped process is signalled whatever `isRunning` says, so that SIGCONT and SIGKILL
    /// always reach it.
    package func signal(_ number: Int32) {
        guard process.isRunning || isStopped else { return }
        kill(pid, number)
        if number == SIGSTOP { isStopped = true }
        if number == SIGCONT || number == SIGKILL { isStopped = false }
    }

    /// Waits for the process to exit, up to `timeout`; returns its status, or nil if it still runs.
    @discardableResult
    package func waitForExit(timeout: Duration = .seconds(30)) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            usleep(10_000)
        }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Whether it still runs (a stopped process counts as running).
    package var isRunning: Bool { process.isRunning || isStopped }

    /// Its log records, for a process started with `--log-format json`: one a JSON line of
    /// standard error (lines that are not JSON, such as a command's notices for people, are
    /// skipped).
    package var logRecords: [LogRecord] {
        stderr.split(separator: "\n").compactMap { LogRecord(jsonLine: $0) }
    }

    /// Its log records that carry the metadata key `key`.
    package func logRecords(withField key: String) -> [LogRecord] {
        logRecords.filter { $0.fields[key] != nil }
    }

    /// The `actionbus` binary built beside the test bundle.
    package static let executable: URL = {
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
