import ActionClient
import ActionWire
import ArgumentParser
import Foundation

/// `actionbus queues`: what waits and what runs, per action and per session.
struct QueuesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queues", abstract: "Print what waits and what runs, per action, and the sessions with the most waiting."
    )

    @Flag(help: "Print the JSON report.")
    var json = false
    @OptionGroup var client: QueryClientOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        try await client.run(label: "actionbus.queues", logging: logging) { client in
            let report = try await client.queues()
            if json { try printJSON(report) } else { print(Self.table(report), terminator: "") }
        }
    }

    static func table(_ report: FleetQueuesReport) -> String {
        var rows = [["ACTION", "QUEUED", "RUNNING", "WORKERS"]]
        for action in report.actions {
            // A known action with no worker: its requests wait for one, since then.
            let workers = action.noWorkerSince.map { "0 (none since \($0))" } ?? String(action.workers)
            rows.append([action.action, String(action.queued), String(action.running), workers])
        }
        rows.append(["(all)", String(report.queued), String(report.running), ""])
        var text = TableText.render(rows)
        if !report.sessions.isEmpty {
            var sessionRows = [["SESSION", "QUEUED", "WORKER"]]
            for session in report.sessions {
                sessionRows.append([session.session, String(session.queued), session.worker ?? "-"])
            }
            text += "\n" + TableText.render(sessionRows)
            if report.omittedSessions > 0 { text += "(\(report.omittedSessions) more sessions with requests waiting)\n" }
        }
        return text
    }
}
