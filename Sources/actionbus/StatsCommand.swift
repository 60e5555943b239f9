import ActionClient
import ArgumentParser
import Foundation

/// `actionbus stats`: the coordinator's counters.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Print the coordinator's counters (accepted, completed, redelivered, dropped...)."
    )

    @Flag(help: "Print the JSON object.")
    var json = false
    @Option(help: "The coordinator's clients endpoint.")
    var coordinator = "tcp://127.0.0.1:5555"
    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 10
    @OptionGroup var curve: CurveClientOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.stats", defaultLevel: .warning)
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = coordinator
        configuration.defaultTimeout = .milliseconds(Int64(timeout * 1000))
        configuration.curve = try curve.keys()
        let client = try ActionClient(configuration: configuration, logger: logger)
        defer { Task { await client.close() } }
        do {
            if json {
                printLine(String(decoding: try await client.statisticsJSON(), as: UTF8.self))
            } else {
                for (name, value) in try await client.statistics().sorted(by: { $0.key < $1.key }) {
                    printLine("\(name) \(value)")
                }
            }
        } catch let error as ActionBusError {
            printError("error: \(error.message)")
            throw ExitCode(2)
        }
    }
}
