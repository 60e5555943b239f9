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
    @OptionGroup var client: QueryClientOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.stacks", defaultLevel: .warning)
        let client = try self.client.makeClient(logger: logger)
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
