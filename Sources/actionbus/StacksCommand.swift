import ActionClient
import ActionCore
import ArgumentParser
import Foundation

/// `actionbus stacks`: the open action stacks across all workers; `--end SESSION` ends a session.
struct StacksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stacks",
        abstract: "Print the open action stacks the coordinator tracks, or end a session's.",
        discussion: "With --end SESSION the session ends as Flint's session end does: its open stacks close on the coordinator and on the worker hosting it, and the command prints what closed."
    )

    @Option(help: "Only this session's stacks.")
    var session = ""
    @Option(name: .customLong("end"), help: ArgumentHelp("End this session: close its stacks everywhere.", valueName: "session"))
    var endSession: String?
    @Flag(help: "Print the JSON report.")
    var json = false
    @OptionGroup var client: QueryClientOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        try await client.run(label: "actionbus.stacks", logging: logging) { client in
            if let endSession {
                let closed = try await client.endSession(endSession)
                if json {
                    printLine(String(decoding: try closed.jsonData(), as: UTF8.self))
                } else {
                    printLine("ended session \(endSession): \(closed.stacks.count) open stack(s) closed")
                    print(closed.text, terminator: "")
                }
                return
            }
            let report = try await client.stacksJSON(session: session)
            if json {
                printLine(String(decoding: report, as: UTF8.self))
            } else {
                print(try ActionStacksReport(jsonData: Data(report)).text, terminator: "")
            }
        }
    }
}
