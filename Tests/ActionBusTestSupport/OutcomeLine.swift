import Foundation

/// One line of `actionbus perform --json` or `actionbus subscribe --json`: an outcome.
package struct OutcomeLine: Decodable, Sendable {
    /// A failure's code and message.
    package struct ErrorInfo: Decodable, Sendable {
        package let code: String
        package let message: String
    }

    package let request: String
    package let action: String
    package let session: String
    package let outcome: String
    package let output: [String: JSONValue]?
    package let error: ErrorInfo?
    package let worker: String
    package let closeActionStack: Bool
    /// The stream's sequence number in the subscriber's scope (subscribers only).
    package let sequence: UInt64?
    /// The outcome's position in the whole stream (subscribers only).
    package let position: UInt64?

    /// Parses every line.
    package static func parse(_ lines: [String]) throws -> [OutcomeLine] {
        try lines.map { try JSONDecoder().decode(OutcomeLine.self, from: Data($0.utf8)) }
    }
}
