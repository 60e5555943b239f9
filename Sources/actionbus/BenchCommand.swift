import ActionClient
import ActionWire
import ArgumentParser
import Dispatch
import Foundation
import Histogram
import Locking

/// `actionbus bench`: load against a running bus, with latency percentiles.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Load a running bus and report throughput and latency percentiles.",
        discussion: """
            Closed loop by default: --concurrency requests in flight, a new one as each returns. \
            With --rate, open loop: requests start on a schedule whatever returns, and latency \
            counts from the scheduled start (so a stall is not hidden). Exits 1 when any request \
            failed or went unanswered.
            """
    )

    @Option(help: "How many requests to measure.")
    var requests = 100_000
    @Option(help: "Requests in flight at once (closed loop).")
    var concurrency = 1000
    @Option(help: "Requests started per second (open loop); 0 for a closed loop.")
    var rate: Double = 0
    @Option(help: "The action to perform.")
    var action = "Echo.say"
    @Option(help: "The input as JSON.")
    var input = #"{"text":"a forty-six byte text, as the benchmarks use"}"#
    @Option(help: "The session to perform in (empty: none).")
    var session = ""
    @Option(help: "How many client connections share the load.")
    var clients = 1
    @Option(help: "Requests sent first and not measured.")
    var warmup = 1000
    @Option(help: "Seconds each request may take.")
    var timeout: Double = 120
    @Flag(help: "Print one JSON line: requests, seconds, throughput, p50Us, p99Us, p999Us, failures.")
    var json = false
    @Option(help: "The coordinator's clients endpoint.")
    var coordinator = "tcp://127.0.0.1:5555"
    @OptionGroup var curve: CurveClientOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard requests >= 1, concurrency >= 1, clients >= 1, warmup >= 0 else {
            throw ValidationError("--requests, --concurrency and --clients must be at least 1, --warmup at least 0")
        }
        guard rate >= 0, timeout > 0 else { throw ValidationError("--rate must not be negative and --timeout must be positive") }
        guard (try? JSONSerialization.jsonObject(with: Data(input.utf8), options: [.fragmentsAllowed])) != nil else {
            throw ValidationError("--input is not valid JSON: \(input)")
        }
    }

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.bench", defaultLevel: .warning)
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = coordinator
        configuration.curve = try curve.keys()
        let connections = try (0..<clients).map { _ in try ActionClient(configuration: configuration, logger: logger) }
        let load = BenchLoad(
            clients: connections, action: action, input: Array(input.utf8), session: session,
            timeout: .milliseconds(Int64(timeout * 1000))
        )
        if warmup > 0 {
            _ = await load.closedLoop(requests: warmup, concurrency: min(concurrency, warmup), progress: false)
        }
        let showProgress = !json && isatty(STDERR_FILENO) == 1
        let result = rate > 0
            ? await load.openLoop(requests: requests, rate: rate, progress: showProgress)
            : await load.closedLoop(requests: requests, concurrency: concurrency, progress: showProgress)
        for connection in connections { await connection.close() }
        if json {
            printLine(result.json)
        } else {
            printLine(result.summary(mode: rate > 0 ? "open loop, \(rate)/s" : "closed loop, \(concurrency) in flight"))
        }
        if result.failures > 0 { throw ExitCode(1) }
    }
}

/// What a bench run measured.
struct BenchResult {
    var requests: Int
    var seconds: Double
    var failures: Int
    var firstFailure: String?
    var histogram: Histogram<UInt64>

    var throughput: Double { Double(requests) / seconds }

    func percentile(_ value: Double) -> Double { Double(histogram.valueAtPercentile(value)) / 1000 }

    var json: String {
        String(
            format: #"{"requests":%d,"seconds":%.3f,"throughput":%.0f,"p50Us":%.1f,"p99Us":%.1f,"p999Us":%.1f,"failures":%d}"#,
            requests, seconds, throughput, percentile(50), percentile(99), percentile(99.9), failures
        )
    }

    func summary(mode: String) -> String {
        var text = String(
            format: "%d requests (%@) in %.2f s: %.0f req/s; latency p50 %.1f µs, p99 %.1f µs, p99.9 %.1f µs, max %.1f µs; %d failed",
            requests, mode, seconds, throughput, percentile(50), percentile(99), percentile(99.9),
            Double(histogram.max) / 1000, failures
        )
        if let firstFailure { text += " (first: \(firstFailure))" }
        return text
    }
}

/// Drives requests through a set of clients and records each one's latency.
final class BenchLoad: Sendable {
    private struct Tally {
        var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .three)
        var done = 0
        var failures = 0
        var firstFailure: String?
    }

    private let clients: [ActionClient]
    private let action: String
    private let input: [UInt8]
    private let session: String
    private let timeout: Duration
    private let tally = Locked(Tally())

    init(clients: [ActionClient], action: String, input: [UInt8], session: String, timeout: Duration) {
        self.clients = clients
        self.action = action
        self.input = input
        self.session = session
        self.timeout = timeout
    }

    /// `concurrency` requests in flight, spread over the clients, until `requests` returned.
    func closedLoop(requests: Int, concurrency: Int, progress: Bool) async -> BenchResult {
        tally.withLock { $0 = Tally() }
        let started = ContinuousClock.now
        let issued = Locked(0)
        let finished = DispatchSemaphore(value: 0)
        @Sendable func issue(on client: ActionClient) {
            let claimed = issued.withLock { count -> Bool in
                guard count < requests else { return false }
                count += 1
                return true
            }
            guard claimed else { return }
            let sent = ContinuousClock.now
            client.perform(action: action, input: input, session: session, timeout: timeout) { [self] result in
                if record(result, since: sent) == requests { finished.signal() }
                issue(on: client)
            }
        }
        for index in 0..<min(concurrency, requests) { issue(on: clients[index % clients.count]) }
        await wait(for: finished, requests: requests, started: started, progress: progress)
        return result(requests: requests, started: started)
    }

    /// `rate` requests started per second, spread over the clients, until `requests` returned.
    func openLoop(requests: Int, rate: Double, progress: Bool) async -> BenchResult {
        tally.withLock { $0 = Tally() }
        let started = ContinuousClock.now
        let finished = DispatchSemaphore(value: 0)
        let interval = Duration.nanoseconds(Int64(1e9 / rate))
        let pacer = Thread { [self] in
            for index in 0..<requests {
                // Latency counts from when the request was due, so falling behind shows.
                let due = started + interval * index
                let wait = due - .now
                if wait > .microseconds(50) { Thread.sleep(forTimeInterval: wait.seconds) }
                clients[index % clients.count].perform(action: action, input: input, session: session, timeout: timeout) { [self] result in
                    if record(result, since: due) == requests { finished.signal() }
                }
            }
        }
        pacer.start()
        await wait(for: finished, requests: requests, started: started, progress: progress)
        return result(requests: requests, started: started)
    }

    /// Records one answer; returns how many have come back.
    private func record(_ result: Result<WireOutcome, ActionBusError>, since sent: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - sent
        let nanoseconds = UInt64(max(0, elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000))
        return tally.withLock { tally in
            tally.histogram.record(nanoseconds)
            tally.done += 1
            let failure: String?
            switch result {
            case .success(let outcome):
                if case .failure(let code, let message) = outcome.result { failure = "\(code): \(message)" } else { failure = nil }
            case .failure(let error):
                failure = "\(error.code): \(error.message)"
            }
            if let failure {
                tally.failures += 1
                if tally.firstFailure == nil { tally.firstFailure = failure }
            }
            return tally.done
        }
    }

    /// Waits off the cooperative pool, drawing a progress bar when asked.
    private func wait(for finished: DispatchSemaphore, requests: Int, started: ContinuousClock.Instant, progress: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [self] in
                var bar = ProgressBar(total: requests, json: !progress)
                while finished.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
                    let (done, failures) = tally.withLock { ($0.done, $0.failures) }
                    bar.update(done: done, failed: failures)
                }
                bar.clear()
                continuation.resume()
            }
        }
    }

    private func result(requests: Int, started: ContinuousClock.Instant) -> BenchResult {
        let seconds = (ContinuousClock.now - started).seconds
        return tally.withLock {
            BenchResult(requests: requests, seconds: seconds, failures: $0.failures, firstFailure: $0.firstFailure, histogram: $0.histogram)
        }
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
