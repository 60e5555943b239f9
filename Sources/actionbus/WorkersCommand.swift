import ActionClient
import ActionWire
import ArgumentParser
import Foundation

/// `actionbus workers`: the workers a coordinator has registered.
struct WorkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers", abstract: "Print the workers the coordinator has registered: what they serve and run."
    )

    @Flag(help: "Print the JSON report.")
    var json = false
    @OptionGroup var client: QueryClientOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        try await client.run(label: "actionbus.workers", logging: logging) { client in
            let report = try await client.workers()
            if json { try printJSON(report) } else { print(Self.table(report), terminator: "") }
        }
    }

    static func table(_ report: FleetWorkersReport) -> String {
        guard !report.workers.isEmpty else { return "no workers registered\n" }
        var rows = [["NAME", "PROTOCOL", "RUNNING", "SESSIONS", "LAST HEARD", "STATE", "ACTIONS"]]
        for worker in report.workers {
            let state = worker.unreachable ? "unreachable" : worker.draining ? "draining" : "ready"
            rows.append([
                worker.name, worker.protocolName, "\(worker.inFlight)/\(worker.credits)", String(worker.sessions),
                "\(worker.lastHeardMs) ms ago", state, worker.actions.joined(separator: " "),
            ])
        }
        return TableText.render(rows)
    }
}
