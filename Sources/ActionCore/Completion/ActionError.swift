/// The error an action fails with: a stable machine-readable ``Code`` and a human-readable message.
///
/// ```swift
/// throw ActionError(code: .invalidInput, message: "n must not be negative")
/// ```
public struct ActionError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// What kind of failure this is; its raw value is stable on the wire.
    public var code: Code
    /// A human-readable explanation, safe to log and to show to a developer.
    public var message: String
    /// Whether trying again may succeed (a transient fault): the session retries the action
    /// under its ``Action/retryPolicy``. Not sent on the wire; only the final outcome is.
    public var isRetryable: Bool

    /// Creates an error with a code and a message; `retryable` marks a transient failure.
    public init(code: Code, message: String, retryable: Bool = false) {
        self.code = code
        self.message = message
        self.isRetryable = retryable
    }

    private enum CodingKeys: String, CodingKey {
        case code, message, isRetryable
    }

    /// Decodes an error; a missing `isRetryable` reads as `false`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Code.self, forKey: .code)
        message = try container.decode(String.self, forKey: .message)
        isRetryable = try container.decodeIfPresent(Bool.self, forKey: .isRetryable) ?? false
    }

    /// `code: message`, for logs.
    public var description: String {
        "\(code): \(message)"
    }
}

extension ActionError {
    /// An extensible error code whose `rawValue` is the string sent on the wire.
    ///
    /// Modules add their own codes with an extension:
    /// `extension ActionError.Code { static let documentNotOpen = Self("documentNotOpen") }`.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The stable wire name of the code.
        public var rawValue: String

        /// Creates a code from its wire name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Creates a code from its wire name.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The wire name.
        public var description: String { rawValue }

        /// The action ran and reported a failure (also used for non-``ActionError`` errors thrown by an ``AsyncAction``).
        public static let actionFailed = Self("actionFailed")
        /// The input could not be decoded or was rejected by the action.
        public static let invalidInput = Self("invalidInput")
        /// The action's output could not be encoded.
        public static let invalidOutput = Self("invalidOutput")
        /// No action with the requested full name is in the catalog.
        public static let unknownAction = Self("unknownAction")
        /// The action's feature is a ``ConditionalFeature`` that is not available now (switched
        /// off, not purchased, a permission missing, turned off by the user).
        public static let featureUnavailable = Self("featureUnavailable")
        /// The action did not complete before its deadline.
        public static let timedOut = Self("timedOut")
        /// The perform was cancelled before the action completed.
        public static let cancelled = Self("cancelled")
        /// An action completed more than once, or after its deadline; reported to observers, never delivered.
        public static let completedTwice = Self("completedTwice")
        /// Something went wrong in the dispatch machinery itself.
        public static let internalError = Self("internalError")
    }
}
