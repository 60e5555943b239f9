/// An action that only marks the end of using a feature: no input, no output, and its success
/// closes the feature's action stack (Flint's `TerminatingAction`).
public protocol TerminatingAction: Action where Input == NoInput, Output == NoOutput {}

extension TerminatingAction {
    /// "Ends the feature's action stack".
    public static var description: String { "Ends the feature's action stack" }

    /// Completes synchronously with success and `closeActionStack`.
    public static func perform(context: ActionContext<NoInput>, completion: ActionCompletion<NoOutput>) -> ActionCompletion<NoOutput>.Status {
        completion.completedSync(.success(NoOutput(), closeActionStack: true))
    }
}
