import ActionCore

/// `Echo`: repeats what it is told.
public enum EchoFeature: Feature {
    /// "Echo".
    public static let name = "Echo"
    /// "Repeats what it is told".
    public static let description = "Repeats what it is told"

    /// `Echo.say {"text"}` → `{"text"}`, completed synchronously.
    public static let say = action(SayAction.self)

    /// Declares `say`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(say)
    }
}

/// Returns its input text, completing synchronously on the session's main queue.
public enum SayAction: Action {
    /// The text to repeat.
    public struct Message: Codable, Sendable, Hashable {
        /// The text.
        public var text: String

        /// Creates a message.
        public init(text: String) {
            self.text = text
        }
    }

    /// `{"text"}`.
    public typealias Input = Message
    /// `{"text"}`, the same text.
    public typealias Output = Message

    /// "Repeats the text".
    public static let description = "Repeats the text"

    /// Completes synchronously with the input.
    public static func perform(context: ActionContext<Message>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(context.input))
    }
}
