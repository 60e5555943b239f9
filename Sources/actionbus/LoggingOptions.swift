import ArgumentParser
import Logging

/// `--log-level` and `--log-format`, shared by every command.
struct LoggingOptions: ParsableArguments {
    /// How log lines look.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// swift-log's text lines (the default).
        case text
        /// One JSON object per line, for log collectors.
        case json
    }

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?
    @Option(help: "Log format on standard error: text, or json (one object per line).")
    var logFormat: Format = .text

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")); got '\(logLevel)'")
        }
    }

    /// Sets up swift-log on standard error and returns a logger for `label`.
    func bootstrap(label: String, defaultLevel: Logger.Level) -> Logger {
        let level = logLevel.flatMap(Logger.Level.init(rawValue:)) ?? defaultLevel
        let format = logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
        return Logger(label: label)
    }
}
