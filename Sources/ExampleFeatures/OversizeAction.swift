import ActionCore

/// Produces an output of the size asked for: how a worker treats a result the bus cannot carry.
public enum OversizeAction: Action {
    /// How large the output's text is.
    public struct Input: Codable, Sendable, Hashable {
        /// The number of bytes of text in the output.
        public var bytes: Int

        /// Creates an input.
        public init(bytes: Int) {
            self.bytes = bytes
        }
    }

    /// `{"data": "xxx…"}`.
    public struct Output: Codable, Sendable, Hashable {
        /// `bytes` letters x.
        public var data: String
    }

    /// "Returns an output of the given size".
    public static let description = "Returns an output of the given size"

    /// Completes with `bytes` bytes of text (at most 64 MiB).
    public static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        guard (0...(64 << 20)).contains(context.input.bytes) else {
            return completion.completedSync(.failure(ActionError(code: .invalidInput, message: "bytes must be between 0 and 64 MiB")))
        }
        return completion.completedSync(.success(Output(data: String(repeating: "x", count: context.input.bytes))))
    }
}
