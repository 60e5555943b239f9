/// Why a multipart message was rejected by the codec.
package struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of defect.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// Fewer frames, or fewer bytes in a fixed-size frame, than the command needs.
        package static let truncated = Code(rawValue: "truncated")
        /// More frames than the command allows.
        package static let extraFrames = Code(rawValue: "extraFrames")
        /// The first frame is not an ActionBus (or Majordomo) header.
        package static let badSignature = Code(rawValue: "badSignature")
        /// The header names a protocol version this peer does not speak.
        package static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// The header names a command this socket does not accept.
        package static let unknownCommand = Code(rawValue: "unknownCommand")
        /// A frame is longer than its limit.
        package static let oversize = Code(rawValue: "oversize")
        /// A text frame is not valid UTF-8.
        package static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// A field has a value the protocol forbids (an empty action name, a zero credit).
        package static let invalidField = Code(rawValue: "invalidField")

        package var description: String { rawValue }
    }

    /// The kind of defect.
    package let code: Code
    /// What exactly was wrong, for logs and error replies.
    package let message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code): \(message)" }
}
