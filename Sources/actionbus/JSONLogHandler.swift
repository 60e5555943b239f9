import Foundation
import Logging

/// A swift-log handler writing one JSON object per line to standard error, for log collectors
/// (`--log-format json`): `{"timestamp":…,"level":…,"label":…,"message":…,"source":…}` and
/// each metadata key as it is named (`action.name`, `worker.name`, `session`, …).
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadataProvider?.get() ?? [:] { fields[key] = "\(value)" }
        for (key, value) in metadata { fields[key] = "\(value)" }
        for (key, value) in event.metadata ?? [:] { fields[key] = "\(value)" }
        fields["timestamp"] = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = "\(event.message)"
        fields["source"] = event.source
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(fields) else { return }
        line.append(UInt8(ascii: "\n"))
        // One write per line: lines from several threads never interleave.
        FileHandle.standardError.write(line)
    }
}
