/// An action written as an `async throws` function.
///
/// The session starts it on the action's executor; the body runs in a `Task` and its result is
/// delivered like any asynchronous completion. A thrown ``ActionError`` becomes a failure with
/// its code, `CancellationError` becomes ``ActionError/Code/cancelled`` and any other error
/// ``ActionError/Code/actionFailed``. The task is cancelled when the perform times out.
public protocol AsyncAction: Action {
    /// Whether a successful outcome closes the feature's action stack; `false` by default.
    static var closesActionStack: Bool { get }

    /// Does the work and returns the output, or throws.
    static func perform(context: ActionContext<Input>) async throws -> Output
}

extension AsyncAction {
    /// `false`: most actions do not end their feature's action stack.
    public static var closesActionStack: Bool { false }

    /// Runs ``perform(context:)`` in a task and completes asynchronously with its result.
    public static func perform(context: ActionContext<Input>, completion: ActionCompletion<Output>) -> ActionCompletion<Output>.Status {
        let pending = completion.willCompleteAsync()
        let task = Task {
            do {
                let output = try await perform(context: context)
                pending.completed(.success(output, closeActionStack: closesActionStack))
            } catch {
                pending.completed(.failure(ActionError(thrownByAction: error)))
            }
        }
        context.onCancel { task.cancel() }
        return pending
    }
}

extension ActionError {
    /// Maps any error thrown by action code to an ``ActionError``.
    init(thrownByAction error: any Error) {
        switch error {
        case let error as ActionError:
            self = error
        case is CancellationError:
            self.init(code: .cancelled, message: "The action was cancelled")
        default:
            self.init(code: .actionFailed, message: String(describing: error))
        }
    }
}
