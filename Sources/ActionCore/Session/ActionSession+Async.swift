extension ActionSession {
    /// Performs `binding`'s action and returns its output, or throws its ``ActionError``.
    ///
    /// Cancelling the calling task ends the perform with ``ActionError/Code/cancelled``.
    public func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant? = nil
    ) async throws(ActionError) -> A.Output {
        try await outcome(of: binding, input: input, deadline: deadline).result.get()
    }

    /// Performs an action that takes no input and returns its output, or throws its ``ActionError``.
    public func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        deadline: ContinuousClock.Instant? = nil
    ) async throws(ActionError) -> A.Output where A.Input == NoInput {
        try await perform(binding, input: NoInput(), deadline: deadline)
    }

    /// Performs `binding`'s action and returns its whole outcome, `closeActionStack` included.
    public func outcome<F: Feature, A: Action>(
        of binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant? = nil
    ) async -> ActionOutcome<A.Output> {
        let cancellation = ActionCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                _ = dispatch(binding, input: input, deadline: deadline, target: .immediate, cancellation: cancellation) { outcome in
                    continuation.resume(returning: outcome)
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}
