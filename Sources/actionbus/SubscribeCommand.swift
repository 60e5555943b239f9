import ActionClient
import ActionWire
import ArgumentParser
import Foundation
import Logging

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
    @Option(help: "The coordinator's outcomes endpoint (a group's: EP1,EP2,EP3).")
    var outcomes = "tcp://127.0.0.1:5557"
    @Option(help: "Resume from this stream position: first what the coordinator kept from it (1: all it keeps), then live, with no gap across restarts and failovers. Each outcome prints its position; resume after the last with it plus 1.")
    var from: UInt64?
    @Option(help: "The coordinator's clients endpoint, asked for the kept outcomes with --from (a group's: EP1,EP2,EP3).")
    var coordinator = "tcp://127.0.0.1:5555"
    @Option(help: "Seconds to wait for the coordinator to confirm the subscription.")
    var timeout: Double = 10
    @OptionGroup var curve: CurveClientOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let action, !action.contains("."), feature == nil {
            throw ValidationError("--action needs the form Feature.action, or --feature beside it")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if from == 0 { throw ValidationError("--from counts from 1 (the first position)") }
    }

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.subscribe", defaultLevel: .warning)
        var configuration = ActionClientConfiguration()
        configuration.outcomesEndpoint = outcomes
        configuration.coordinatorEndpoint = coordinator
        configuration.curve = try curve.keys()
        let client = try ActionClient(configuration: configuration, logger: logger)
        var liveStream: AsyncStream<[StreamedOutcome]>?
        var resumingStream: AsyncThrowingStream<StreamedOutcome, any Error>?
        var beganStream: AsyncStream<StreamedBegan>?
        do {
            let confirmation = Duration.milliseconds(Int64(timeout * 1000))
            if began {
                beganStream = try await client.began(feature: feature, action: action, session: session, confirmationTimeout: confirmation)
            }
            if let from {
                resumingStream = try await client.outcomes(
                    from: from, feature: feature, action: action, session: session, confirmationTimeout: confirmation
                )
            } else {
                liveStream = try await client.outcomeBatches(feature: feature, action: action, session: session, confirmationTimeout: confirmation)
            }
        } catch let error as ActionBusError {
            printError("error: \(error.message)")
            throw ExitCode(2)
        }
        printError("subscribed to \(outcomes)")
        // The same, as a field for programs reading `--log-format json` (hidden at the default level).
        logger.info("subscribed", metadata: ["subscription.endpoint": "\(outcomes)"])
        let json = json, liveOutcomes = liveStream, resumingOutcomes = resumingStream
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
            do {
                if let liveOutcomes {
                    try await print(liveOutcomes, to: lines, logger: logger)
                } else if let resumingOutcomes {
                    try await print(resumingOutcomes.map { [$0] }, to: lines, logger: logger)
                }
            } catch let error as ActionBusError {
                lines.flush()
                printError("error: \(error.message)")
                throw ExitCode(2)
            }
        }
        await client.close()
    }

    /// Prints runs of outcomes until `limit`, saying where the stream had gaps.
    private func print<Outcomes: AsyncSequence>(_ stream: Outcomes, to lines: StreamedLines, logger: Logger) async throws
    where Outcomes.Element == [StreamedOutcome] {
        var printed = 0, missed: UInt64 = 0, gaps = 0, restarts = 0
        reading: for try await batch in stream {
            for event in batch {
                if event.coordinatorRestarted {
                    restarts += 1
                    printError("gap: the coordinator restarted; outcomes finished around the restart may be missing (uncounted; resume with --from \(event.position) or earlier to get them)")
                    logger.info("coordinator restarted", metadata: ["stream.coordinatorRestarts": "\(restarts)"])
                }
                if event.missed > 0 {
                    missed += event.missed
                    gaps += 1
                    printError("gap: \(event.missed) outcome(s) dropped before sequence \(event.sequence)")
                }
                if json {
                    lines.append(OutcomeJSON.encode(event.outcome, sequence: event.sequence, position: event.position))
                } else {
                    lines.append("#\(event.sequence) @\(event.position) \(PerformCommand.describe(event.outcome))")
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

    /// A began event as one line of JSON: `{"began":true,"request":...,"action":...,"session":...,"worker":...}`.
    static func json(_ event: BeganEvent) -> String {
        let fields = ["request": event.requestID, "action": event.action, "session": event.session, "worker": event.worker]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let object = String(decoding: (try? encoder.encode(fields)) ?? Data("{}".utf8), as: UTF8.self)
        return #"{"began":true,"# + object.dropFirst()
    }
}
