import ActionCore

/// `Echo`: repeats what it is told.
public enum EchoFeature: Feature {
    /// "Echo".
    public static let name = "Echo"
    /// "Repeats what it is told".
    public static let description = "Repeats what it is told"

    /// `Echo.say {"text"}` → `{"text"}`, completed synchronously.
    public static let say = action(SayAction.self)

    /// `Echo.sayDirect {"text"}` → `{"text"}`: `say` on the direct executor, so it runs on the
    /// caller's thread (on a worker, its I/O thread, with no hop to a queue and back).
    public static let sayDirect = action(SayDirectAction.self)

    /// `Echo.sayTwice {"text"}` → `{"text":"<text> <text>"}`: performs `Echo.say` in its own
    /// session first (Flint's nested perform), which a worker reports to the coordinator's stacks.
    public static let sayTwice = action(SayTwiceAction.self)

    /// Declares `say`, `sayDirect` and `sayTwice`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(say)
        actions.declare(sayDirect)
        actions.declare(sayTwice)
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

/// Returns its input text on the caller's thread: an action that touches no state and never
/// waits needs no queue, and on a worker it then costs no thread hop (Flint's direct executor).
public enum SayDirectAction: Action {
    /// `{"text"}`.
    public typealias Input = SayAction.Message
    /// `{"text"}`, the same text.
    public typealias Output = SayAction.Message

    /// "Repeats the text, on the caller's thread".
    public static let description = "Repeats the text, on the caller's thread"

    /// The direct executor: no queue.
    public static let executor = ActionExecutorSelection.executor(DirectExecutor())

    /// Completes synchronously with the input.
    public static func perform(context: ActionContext<SayAction.Message>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(context.input))
    }
}

/// Says its text twice by performing `Echo.say` in its session and repeating the answer: an
/// action that performs another (a nested perform). Both join the session's `Echo` stack.
public enum SayTwiceAction: Action {
    /// `{"text"}`.
    public typealias Input = SayAction.Message
    /// `{"text"}`: the text, a space, the text.
    public typealias Output = SayAction.Message

    /// "Says the text twice, through Echo.say".
    public static let description = "Says the text twice, through Echo.say"

    /// Performs `Echo.say`, then completes with its answer twice. On the session's main queue
    /// the nested perform runs inline, so it completes before this returns.
    public static func perform(context: ActionContext<SayAction.Message>, completion: Completion) -> Completion.Status {
        let pending = completion.willCompleteAsync()
        context.session.perform(EchoFeature.say, input: context.input, deadline: context.deadline) { outcome in
            switch outcome {
            case .success(let said, _): pending.completed(.success(SayAction.Message(text: said.text + " " + said.text)))
            case .failure(let error, _): pending.completed(.failure(error))
            }
        }
        return pending
    }
}
