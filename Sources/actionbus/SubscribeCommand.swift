import ActionClient
import ActionWire
import ArgumentParser
import Foundation

/// `actionbus subscribe`: prints outcomes from the stream as they happen.
struct SubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe", abstract: "Print outcomes from the outcome stream, filtered at the socket (--began: starts too)."
    )

    @Option(help: "Only this feature's outcomes.")
    var feature: String?
    @Option(help: "Only this action's outcomes (Feature.action, or an action of --feature).")
    var action: String?
    @Option(help: "Only this session's outcomes.")
    var session: String?
    @Flag(help: "Also print each request as it starts on its worker (began events; workers report them only while someone asks).")
    var began = false
    @Option(help: "Exit after this many outcomes.")
    var limit: Int?
    @Flag(help: "Print one JSON object per outcome per line.")
    var json = false
    @Option(help: "The coordinator's outcomes endpoint.")
    var outcomes = "tcp://127.0.0.1:5557"
    @Option(help: "Seconds to wait for the coordinator to confirm the subscription.")
    var timeout: Double = 10
    @OptionGroup var curve: CurveClientOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let action, !action.contains("."), feature == nil {
            throw ValidationError("--action needs the form Feature.action, or --feature beside it")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.subscribe", defaultLevel: .warning)
        var configuration = ActionClientConfiguration()
        configuration.outcomesEndpoint = outcomes
        configuration.curve = try curve.keys()
        let client = try ActionClient(configuration: configuration, logger: logger)
        let stream: AsyncStream<[StreamedOutcome]>
        var beganStream: AsyncStream<StreamedBegan>?
        do {
            let confirmation = Duration.milliseconds(Int64(timeout * 1000))
            if began {
                beganStream = try await client.began(feature: feature, action: action, session: session, confirmationTimeout: confirmation)
            }
            stream = try await client.outcomeBatches(feature: feature, action: action, session: session, confirmationTimeout: confirmation)
        } catch let error as ActionBusError {
            printError("error: \(error.message)")
            throw ExitCode(2)
        }
        printError("subscribed to \(outcomes)")
        // The same, as a field for programs reading `--log-format json` (hidden at the default level).
        logger.info("subscribed", metadata: ["subscription.endpoint": "\(outcomes)"])
        let json = json, limit = limit
        let lines = StreamedLines()
        defer { lines.flush() }
        let beganPrinter = beganStream.map { beganStream in
            Task {
                for await began in beganStream {
                    lines.append(json ? Self.json(began.event) : "▶ began \(began.event.action) [\(began.event.worker)] \(began.event.requestID)"
                        + (began.event.session.isEmpty ? "" : " session \(began.event.session)"))
                }
            }
        }
        defer { beganPrinter?.cancel() }
        try await untilTerminated {
            var printed = 0, missed: UInt64 = 0, gaps = 0, restarts = 0
            reading: for await batch in stream {
                for event in batch {
                    if event.coordinatorRestarted {
                        restarts += 1
                        printError("gap: the coordinator restarted; outcomes finished around the restart may be missing (uncounted)")
                        logger.info("coordinator restarted", metadata: ["stream.coordinatorRestarts": "\(restarts)"])
                    }
                    if event.missed > 0 {
                        missed += event.missed
                        gaps += 1
                        printError("gap: \(event.missed) outcome(s) dropped before sequence \(event.sequence)")
                    }
                    if json {
                        lines.append(OutcomeJSON.encode(event.outcome, sequence: event.sequence))
                    } else {
                        lines.append("#\(event.sequence) \(PerformCommand.describe(event.outcome))")
                    }
                    printed += 1
                    if let limit, printed >= limit { break reading }
                }
            }
            lines.flush()
            if gaps > 0 {
                printError("missed \(missed) outcome(s) in \(gaps) gap(s); this subscriber read too slowly for the stream")
            }
            if restarts > 0 {
                printError("the coordinator restarted \(restarts) time(s) while this subscriber listened; outcomes may be missing")
            }
        }
        await client.close()
    }

    /// A began event as one line of JSON: `{"began":true,"request":...,"action":...,"session":...,"worker":...}`.
    static func json(_ event: BeganEvent) -> String {
        let fields = ["request": event.requestID, "action": event.action, "session": event.session, "worker": event.worker]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let object = String(decoding: (try? encoder.encode(fields)) ?? Data("{}".utf8), as: UTF8.self)
        return #"{"began":true,"# + object.dropFirst()
    }
}
