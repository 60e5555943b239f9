import Foundation

/// One line of a process's `--log-format json` log: its level, its message and its metadata.
///
/// Tests read the metadata (`worker.name`, `journal.finished`, ...), which are named values,
/// not the message, whose wording is free to change.
package struct LogRecord: Sendable, Hashable {
    /// Every field of the line: the metadata, and `level`, `label`, `message`, `source`, `timestamp`.
    package let fields: [String: String]

    /// The log level (`info`, `warning`, ...).
    package var level: String? { fields["level"] }

    /// The metadata value `key` as an integer, when it is one.
    package func integer(_ key: String) -> Int? {
        fields[key].flatMap { Int($0) }
    }

    /// Parses one line; `nil` when it is not a JSON object of strings.
    package init?(jsonLine: Substring) {
        guard jsonLine.first == "{",
              let object = try? JSONDecoder().decode([String: String].self, from: Data(jsonLine.utf8)) else { return nil }
        fields = object
    }
}
