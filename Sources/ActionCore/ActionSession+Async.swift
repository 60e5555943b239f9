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
        let relay = CancellationRelay()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let completion = dispatch(binding, input: input, deadline: deadline, target: .immediate) { outcome in
                    continuation.resume(returning: outcome)
                }
                relay.arm {
                    completion.terminate(with: ActionError(code: .cancelled, message: "\(binding.fullName) was cancelled by its caller"))
                }
            }
        } onCancel: {
            relay.cancel()
        }
    }
}
