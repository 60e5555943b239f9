import ArgumentParser
import Foundation

/// The `actionbus` command line: run a coordinator, workers, or talk to a running bus.
struct ActionBusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actionbus",
        abstract: "Run Flint-style action sessions across processes over ZeroMQ.",
        subcommands: [
            CoordinatorCommand.self, StandbyCommand.self, GroupCommand.self, WorkerCommand.self, PerformCommand.self,
            SubscribeCommand.self, StacksCommand.self, StatsCommand.self, WorkersCommand.self, QueuesCommand.self, FeaturesCommand.self,
            BenchCommand.self, DevCommand.self,
            KeygenCommand.self,
        ]
    )
}

@main
enum ActionBusMain {
    /// Runs the command; usage errors exit 2 (not ArgumentParser's 64), as `perform` documents.
    static func main() async {
        do {
            var command = try ActionBusCommand.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = ActionBusCommand.exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((ActionBusCommand.fullMessage(for: error) + "\n").utf8))
                exit(2)
            }
            ActionBusCommand.exit(withError: error)
        }
    }
}
