/// What an outcome was, without its output: the record kept in action stacks and sent to observers.
public struct ActionOutcomeSummary: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Whether the action succeeded or failed.
    public enum Status: String, Sendable, Hashable, Codable {
        /// The action succeeded.
        case success
        /// The action failed.
        case failure
    }

    /// Whether the action succeeded or failed.
    public var status: Status
    /// The failure's code; `nil` for a success.
    public var errorCode: ActionError.Code?
    /// Whether the outcome closed its feature's action stack.
    public var closeActionStack: Bool

    /// Creates a summary.
    public init(status: Status, errorCode: ActionError.Code? = nil, closeActionStack: Bool = false) {
        self.status = status
        self.errorCode = errorCode
        self.closeActionStack = closeActionStack
    }

    /// A successful outcome.
    public static func success(closeActionStack: Bool = false) -> Self {
        Self(status: .success, closeActionStack: closeActionStack)
    }

    /// A failed outcome with `code`.
    public static func failure(_ code: ActionError.Code, closeActionStack: Bool = false) -> Self {
        Self(status: .failure, errorCode: code, closeActionStack: closeActionStack)
    }

    /// `success`, or `failure(code)`, with ` closes stack` when it closed its stack.
    public var description: String {
        var text = errorCode.map { "failure(\($0))" } ?? status.rawValue
        if closeActionStack { text += " closes stack" }
        return text
    }
}
