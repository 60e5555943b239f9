import Dispatch

extension ActionBinding {
    /// Performs the action in its ``Action/defaultSession`` (``ActionSession/main`` unless the
    /// action says otherwise): Flint's `binding.perform(input:)`.
    ///
    /// - Parameters:
    ///   - completionQueue: Where `completion` runs; `nil` runs it on the action's executor.
    ///   - completion: Receives the outcome, exactly once.
    @discardableResult
    public func perform(
        input: A.Input,
        completionQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> ActionRequestID {
        A.defaultSession.perform(self, input: input, completionQueue: completionQueue, completion: completion)
    }

    /// Performs the action in its ``Action/defaultSession`` and returns its output, or throws its
    /// ``ActionError``.
    public func perform(input: A.Input, deadline: ContinuousClock.Instant? = nil) async throws(ActionError) -> A.Output {
        try await A.defaultSession.perform(self, input: input, deadline: deadline)
    }
}

extension ActionBinding where A.Input == NoInput {
    /// Performs an action that takes no input in its ``Action/defaultSession``.
    @discardableResult
    public func perform(
        completionQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> ActionRequestID {
        perform(input: NoInput(), completionQueue: completionQueue, completion: completion)
    }

    /// Performs an action that takes no input in its ``Action/defaultSession`` and returns its output.
    public func perform(deadline: ContinuousClock.Instant? = nil) async throws(ActionError) -> A.Output {
        try await perform(input: NoInput(), deadline: deadline)
    }
}
