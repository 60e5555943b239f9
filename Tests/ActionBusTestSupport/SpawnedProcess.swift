import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, its output written to files, reaped by PID.
///
/// Tests do not use Foundation's `Process` on Linux: its `run()` can crash the whole test process
/// (an over-read while it looks for the highest open descriptor, swift-corelibs-foundation
/// before pull request 5472). This needs only what the tests use: a pid, signals and the exit
/// status.
package final class SpawnedProcess: Sendable {
    package let processIdentifier: pid_t
    private let exit = Locked<Int32?>(nil)

    /// Starts `executable` with `arguments` and exactly `environment`; standard input reads
    /// `/dev/null`; standard output and error are appended to the files at those paths (one
    /// path for both is fine). No other descriptor of the test process reaches the child (on
    /// Linux where glibc has `posix_spawn_file_actions_addclosefrom_np`, 2.34 and later).
    package init(executable: String, arguments: [String], environment: [String: String], standardOutput: String, standardError: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if standardError == standardOutput {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        #if os(Linux)
        let flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        #else
        let flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        // The child starts with the default signal mask and dispositions, whatever the test
        // process (or a library in it) blocked or ignored.
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        var noSignal = sigset_t()
        sigemptyset(&noSignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let failure = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard failure == 0 else {
            throw FixtureError(description: "could not start \(executable): \(String(cString: strerror(failure)))")
        }
        processIdentifier = pid
    }

    #if os(Linux)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not import; looked up by name.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    #endif

    /// Whether it has not exited yet (a stopped process still runs).
    package var isRunning: Bool { reap() == nil }

    /// Its exit code, or the number of the signal that ended it; 0 while it runs.
    package var terminationStatus: Int32 { reap() ?? 0 }

    /// Waits until it exits (polling, so that no lock is held while it runs).
    package func waitUntilExit() {
        while reap() == nil { usleep(10_000) }
    }

    /// The status once it has exited, reaping it then; `waitpid` never reports it twice, so it
    /// is kept.
    private func reap() -> Int32? {
        exit.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            var result: pid_t
            repeat {
                result = waitpid(processIdentifier, &raw, WNOHANG)
            } while result == -1 && errno == EINTR
            // ECHILD: reaped elsewhere (or SIGCHLD ignored): gone, its status unknown.
            if result == -1 && errno == ECHILD {
                status = -1
                return status
            }
            guard result == processIdentifier else { return nil }
            // WIFEXITED / WEXITSTATUS / WTERMSIG are C macros Swift does not import.
            let signal = raw & 0x7f
            status = signal == 0 ? (raw >> 8) & 0xff : signal
            return status
        }
    }

    /// Runs `executable` to its end, or kills it by PID after `timeout`; returns its status and
    /// what it wrote to standard output and error together.
    package static func run(
        _ executable: String, _ arguments: [String], timeout: Duration = .seconds(30)
    ) throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("actionbus-run-\(UUID().uuidString)").path
        defer { unlink(outputPath) }
        let process = try SpawnedProcess(
            executable: executable, arguments: arguments, environment: ProcessInfo.processInfo.environment,
            standardOutput: outputPath, standardError: outputPath)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (process.terminationStatus, output)
    }
}
