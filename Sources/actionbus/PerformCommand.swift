import ActionClient
import ActionWire
import ArgumentParser
import Foundation

/// `actionbus perform`: sends requests and prints their outcomes.
struct PerformCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "perform",
        abstract: "Perform an action and print its outcome.",
        discussion: "Exits 0 when every outcome succeeded, 1 when any failed, 2 on usage or connection errors."
    )

    @Argument(help: "The action, Feature.action (e.g. Echo.say).")
    var action: String
    @Option(help: "The input as JSON.")
    var input = "{}"
    @Option(help: "The session to perform in (sticky to one worker, ordered).")
    var session = ""
    @Option(help: "How many requests to send, each with its own identity.")
    var count = 1
    @Option(help: "How many requests in flight at once.")
    var concurrency = 1
    @Option(help: "Seconds to wait for each outcome.")
    var timeout: Double = 30
    @Option(help: "A request identity to use instead of a generated one (retries reuse the outcome).")
    var idempotencyKey: String?
    @Flag(help: "Perform as a program, not a user (Flint's userInitiatedActions false): the stacks say so.")
    var notUserInitiated = false
    @Flag(help: "Print one JSON object per outcome per line.")
    var json = false
    @Option(help: "The coordinator's clients endpoint.")
    var coordinator = "tcp://127.0.0.1:5555"
    @OptionGroup var curve: CurveClientOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard action.contains("."), !action.hasPrefix("."), !action.hasSuffix(".") else {
            throw ValidationError("'\(action)' is not an action name of the form Feature.action (e.g. Echo.say)")
        }
        guard (try? JSONSerialization.jsonObject(with: Data(input.utf8), options: [.fragmentsAllowed])) != nil else {
            throw ValidationError("--input is not valid JSON: \(input)")
        }
        guard count >= 1, concurrency >= 1 else { throw ValidationError("--count and --concurrency must be at least 1") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    /// How long an outcome line may wait in the output buffer.
    static let outputDelay: Duration = .milliseconds(20)

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.perform", defaultLevel: .warning)
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = coordinator
        configuration.curve = try curve.keys()
        let client = try ActionClient(configuration: configuration, logger: logger)
        let timeout = Duration.milliseconds(Int64(self.timeout * 1000))
        let body = Array(input.utf8)
        /// What the loop below takes, in order: an answer, or the output's timer.
        enum Event {
            case answered(Result<WireOutcome, ActionBusError>)
            case outputDue
        }
        let (events, sink) = AsyncStream<Event>.makeStream()
        var sent = 0, received = 0, failed = 0, unanswered = 0
        // Buffered: a burst of a million outcomes is a few hundred writes, not a million. The
        // buffer is written whenever nothing else is outstanding, so a single perform prints at
        // once, and otherwise within 20 ms of its oldest line, so a program reading the lines as
        // they come (`| jq`) sees each promptly. Everything is written from this loop, between
        // the progress bar's updates.
        var output = OutputBuffer()
        var outputDue = false
        var progress = ProgressBar(total: count, json: json)
        func sendNext() {
            sent += 1
            let requestID = idempotencyKey.map { count == 1 ? $0 : "\($0)-\(sent)" }
            client.perform(action: action, input: body, session: session, timeout: timeout, requestID: requestID,
                           userInitiated: !notUserInitiated) { result in
                sink.yield(.answered(result))
            }
        }
        func writeOutput() {
            progress.clear()
            output.flush()
            outputDue = false
        }
        while sent < min(concurrency, count) { sendNext() }
        for await event in events {
            guard case .answered(let result) = event else {
                writeOutput()
                continue
            }
            received += 1
            switch result {
            case .success(let outcome):
                if !outcome.isSuccess { failed += 1 }
                if json {
                    output.append(OutcomeJSON.encode(outcome))
                } else {
                    output.append(Self.describe(outcome))
                }
            case .failure(let error):
                unanswered += 1
                writeOutput()
                printError("error: \(error.message)")
                // The same, as fields for programs reading `--log-format json` (hidden at the default level).
                logger.info("request unanswered", metadata: ["error.code": "\(error.code)", "coordinator.endpoint": "\(coordinator)"])
            }
            if sent < count { sendNext() }
            if received == sent || output.isFull {
                writeOutput()
            } else if !outputDue, !output.isEmpty {
                outputDue = true
                Task {
                    try? await Task.sleep(for: Self.outputDelay)
                    sink.yield(.outputDue)
                }
            }
            progress.update(done: received, failed: failed + unanswered)
            if received == count { break }
        }
        progress.clear()
        output.flush()
        await client.close()
        if unanswered > 0 { throw ExitCode(2) }
        if failed > 0 { throw ExitCode(1) }
    }

    static func describe(_ outcome: WireOutcome) -> String {
        let place = outcome.worker.isEmpty ? "" : " [\(outcome.worker)]"
        let session = outcome.session.isEmpty ? "" : " session \(outcome.session)"
        let closes = outcome.closeActionStack ? " (closes stack)" : ""
        switch outcome.result {
        case .success(_, let output):
            return "✔ \(outcome.action)\(session)\(place): \(String(decoding: output, as: UTF8.self))\(closes)"
        case .failure(let code, let message):
            return "✘ \(outcome.action)\(session)\(place): \(code): \(message)\(closes)"
        }
    }
}
