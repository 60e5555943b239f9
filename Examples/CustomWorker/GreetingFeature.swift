import ActionCore

/// A feature of your own: it greets, in a language the session remembers.
enum GreetingFeature: Feature {
    static let name = "Greeting"
    static let description = "Greets people"

    static let hello = action(HelloAction.self)

    static func prepare(actions: inout FeatureActions) {
        actions.declare(hello)
    }
}

/// `Greeting.hello {"name"}` → `{"greeting"}`, completing synchronously on the session's queue.
enum HelloAction: Action {
    struct Input: Codable, Sendable { var name: String }
    struct Output: Codable, Sendable { var greeting: String }

    static let description = "Says hello"

    static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        guard !context.input.name.isEmpty else {
            return completion.completedSync(.failure(ActionError(code: .invalidInput, message: "name is empty")))
        }
        return completion.completedSync(.success(Output(greeting: "Hello, \(context.input.name)!")))
    }
}
