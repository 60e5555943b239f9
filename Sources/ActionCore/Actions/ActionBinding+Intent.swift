import Dispatch

extension ActionBinding where A: IntentAction {
    /// Performs the action for `intent` in its ``Action/defaultSession`` (``ActionSession/intents``
    /// unless the action says otherwise): Flint's `binding.perform(withIntent:completion:)`.
    ///
    /// - Throws: What ``IntentAction/input(fromIntent:)`` throws, or
    ///   ``ActionError/Code/invalidInput`` when it has no input for `intent`; the action did not
    ///   run, and `completion` is not called.
    @discardableResult
    public func perform(
        intent: A.Intent,
        completionQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) throws(ActionError) -> ActionRequestID {
        perform(input: try input(for: intent), completionQueue: completionQueue, completion: completion)
    }

    /// Performs the action for `intent` in its ``Action/defaultSession`` and returns its output
    /// (the intent's response), or throws its ``ActionError``, or the conversion's.
    public func perform(intent: A.Intent, deadline: ContinuousClock.Instant? = nil) async throws(ActionError) -> A.Output {
        try await perform(input: try input(for: intent), deadline: deadline)
    }

    private func input(for intent: A.Intent) throws(ActionError) -> A.Input {
        guard let input = try A.input(fromIntent: intent) else {
            throw ActionError(code: .invalidInput, message: "\(self) has no input for the intent \(intent)")
        }
        return input
    }
}
