import ArgumentParser
import Logging

/// `--log-level`, shared by every command.
struct LoggingOptions: ParsableArguments {
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    /// Sets up swift-log on standard error and returns a logger for `label`.
    func bootstrap(label: String, defaultLevel: Logger.Level) -> Logger {
        let level = logLevel.flatMap(Logger.Level.init(rawValue:)) ?? defaultLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: label)
    }
}
