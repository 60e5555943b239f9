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
    @OptionGroup var client: QueryClientOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        try await client.run(label: "actionbus.stats", logging: logging) { client in
            if json {
                printLine(String(decoding: try await client.statisticsJSON(), as: UTF8.self))
            } else {
                for (name, value) in try await client.statistics().sorted(by: { $0.key < $1.key }) {
                    printLine("\(name) \(value)")
                }
            }
        }
    }
}
