/// Why a multipart message was rejected by the codec.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of defect.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Fewer frames, or fewer bytes in a fixed-size frame, than the command needs.
        public static let truncated = Code(rawValue: "truncated")
        /// More frames than the command allows.
        public static let extraFrames = Code(rawValue: "extraFrames")
        /// The first frame is not an ActionBus (or Majordomo) header.
        public static let badSignature = Code(rawValue: "badSignature")
        /// The header names a protocol version this peer does not speak.
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// The header names a command this socket does not accept.
        public static let unknownCommand = Code(rawValue: "unknownCommand")
        /// A frame is longer than its limit.
        public static let oversize = Code(rawValue: "oversize")
        /// A text frame is not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// A field has a value the protocol forbids (an empty action name, a zero credit).
        public static let invalidField = Code(rawValue: "invalidField")

        public var description: String { rawValue }
    }

    /// The kind of defect.
    public let code: Code
    /// What exactly was wrong, for logs and error replies.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
