import ActionClient
import ArgumentParser
import Foundation
import Logging

/// What `stacks` and `stats` share: where the coordinator is, how long to wait, CURVE keys.
struct QueryClientOptions: ParsableArguments {
    @Option(help: "The coordinator's clients endpoint.")
    var coordinator = "tcp://127.0.0.1:5555"
    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 10
    @OptionGroup var curve: CurveClientOptions

    /// A client for one query.
    func makeClient(logger: Logger) throws -> ActionClient {
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = coordinator
        configuration.defaultTimeout = .milliseconds(Int64(timeout * 1000))
        configuration.curve = try curve.keys()
        return try ActionClient(configuration: configuration, logger: logger)
    }
}

extension QueryClientOptions {
    /// Runs one query command: logging set up, a client made and closed, an ActionBus error
    /// printed and turned into exit status 2.
    func run(label: String, logging: LoggingOptions, _ body: (ActionClient) async throws -> Void) async throws {
        let logger = logging.bootstrap(label: label, defaultLevel: .warning)
        let client = try makeClient(logger: logger)
        defer { Task { await client.close() } }
        do {
            try await body(client)
        } catch let error as ActionBusError {
            printError("error: \(error.message)")
            // The same, as fields for programs reading `--log-format json` (hidden at the default level).
            logger.info("query unanswered", metadata: ["error.code": "\(error.code)", "coordinator.endpoint": "\(coordinator)"])
            throw ExitCode(2)
        }
    }
}

/// Prints `report` as one line of compact JSON with sorted keys.
func printJSON(_ report: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    printLine(String(decoding: try encoder.encode(report), as: UTF8.self))
}
