import Dispatch

extension ActionBinding {
    /// Performs the action in its ``Action/defaultSession`` (``ActionSession/main`` unless the
    /// action says otherwise): Flint's `binding.perform(input:)`.
    ///
    /// - Parameters:
    ///   - input: The action's input.
    ///   - completionQueue: Where `completion` runs; `nil` follows ``CallerQueue``'s rule: the
    ///     `OperationQueue` the caller runs in, else the action's executor (Flint's default is
    ///     the action's queue whoever calls; see docs/FLINT.md, "Completion queues").
    ///   - completion: Receives the outcome once; never if the action drops its completion and
    ///     the perform has no deadline.
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
