import ActionCore

/// A feature of your own: it greets people by name.
///
/// It lives in a library of its own, so the worker that runs it (`custom-worker`) and a client
/// that performs it (Examples/ClientApp) share one definition of its actions' names and types.
public enum GreetingFeature: Feature {
    /// "Greeting", the first half of its actions' names.
    public static let name = "Greeting"
    /// "Greets people".
    public static let description = "Greets people"

    /// `Greeting.hello {"name"}` → `{"greeting"}`.
    public static let hello = action(HelloAction.self)

    /// Declares `hello`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(hello)
    }
}

/// `Greeting.hello {"name"}` → `{"greeting"}`, completing synchronously on the session's queue;
/// an empty name fails `invalidInput`.
public enum HelloAction: Action {
    /// Whom to greet.
    public struct Input: Codable, Sendable, Hashable {
        /// The name; not empty.
        public var name: String

        /// Creates an input.
        public init(name: String) {
            self.name = name
        }
    }

    /// The greeting.
    public struct Output: Codable, Sendable, Hashable {
        /// `Hello, <name>!`.
        public var greeting: String

        /// Creates an output.
        public init(greeting: String) {
            self.greeting = greeting
        }
    }

    /// "Says hello".
    public static let description = "Says hello"

    /// Greets `context.input.name`, or fails `invalidInput` when it is empty.
    public static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        guard !context.input.name.isEmpty else {
            return completion.completedSync(.failure(ActionError(code: .invalidInput, message: "name is empty")))
        }
        return completion.completedSync(.success(Output(greeting: "Hello, \(context.input.name)!")))
    }
}
