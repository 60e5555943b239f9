import Dispatch

/// What an action's outcome is handed to in the caller's process: Flint's presenter, moved to
/// the caller's side.
///
/// Flint gives an action its presenter and lets the action drive it. An ActionBus action may run
/// in another process, where no presenter of the caller's can follow, so it returns an `Output`
/// instead; a caller that wants Flint's shape passes a presenter to the perform, which hands it
/// the output (or the failure) on the queue the caller chose.
public protocol ActionPresenter<Output>: Sendable {
    /// The output it presents.
    associatedtype Output: Sendable
    /// The action succeeded.
    func present(_ output: Output)
    /// The action failed (the default does nothing).
    func presentFailure(_ error: ActionError)
}

extension ActionPresenter {
    /// Does nothing.
    public func presentFailure(_ error: ActionError) {}
}

extension ActionOutcome {
    /// Hands the outcome to `presenter`: the output, or the failure.
    public func present<P: ActionPresenter>(to presenter: P) where P.Output == Output {
        switch self {
        case .success(let output, _): presenter.present(output)
        case .failure(let error, _): presenter.presentFailure(error)
        }
    }
}

extension ActionSession {
    /// Performs `binding`'s action and hands its outcome to `presenter` on `completionQueue` (by
    /// default the action's executor, as for any completion).
    @discardableResult
    public func perform<F: Feature, A: Action, P: ActionPresenter>(
        _ binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant? = nil,
        completionQueue: DispatchQueue? = nil,
        presenter: P
    ) -> ActionRequestID where P.Output == A.Output {
        perform(binding, input: input, deadline: deadline, completionQueue: completionQueue) { outcome in
            outcome.present(to: presenter)
        }
    }
}
