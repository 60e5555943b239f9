import ActionClient
import ActionCore
import ArgumentParser
import Foundation

/// `actionbus stacks`: the open action stacks across all workers.
struct StacksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stacks", abstract: "Print the open action stacks the coordinator tracks."
    )

    @Option(help: "Only this session's stacks.")
    var session = ""
    @Flag(help: "Print the JSON report.")
    var json = false
    @Option(help: "The coordinator's clients endpoint.")
    var coordinator = "tcp://127.0.0.1:5555"
    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 10
    @OptionGroup var curve: CurveClientOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.stacks", defaultLevel: .warning)
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = coordinator
        configuration.defaultTimeout = .milliseconds(Int64(timeout * 1000))
        configuration.curve = try curve.keys()
        let client = try ActionClient(configuration: configuration, logger: logger)
        defer { Task { await client.close() } }
        do {
            let report = try await client.stacksJSON(session: session)
            if json {
                printLine(String(decoding: report, as: UTF8.self))
            } else {
                print(try ActionStacksReport(jsonData: Data(report)).text, terminator: "")
            }
        } catch let error as ActionBusError {
            printError("error: \(error.message)")
            throw ExitCode(2)
        }
    }
}
