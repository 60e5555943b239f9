import Dispatch

/// What a caller wants done with an outcome, and where (Flint's `Action.Completion` that a
/// caller creates): a handler, the queue it runs on, and, as in Flint, whether the action
/// completed asynchronously.
///
/// ```swift
/// let requirement = ActionCompletionRequirement<SayAction.Output>(queue: .main) { outcome, completedAsync in
///     print(outcome, completedAsync ? "later" : "at once")
/// }
/// session.perform(EchoFeature.say, input: .init(text: "hi"), completionRequirement: requirement)
/// ```
public struct ActionCompletionRequirement<Output: Sendable>: Sendable {
    /// Where the handler runs; `nil` follows ``CallerQueue``'s rule.
    public let queue: DispatchQueue?
    /// Receives the outcome and whether it came asynchronously: the action promised to complete
    /// later (`willCompleteAsync`), the perform ended without it (a timeout, a cancellation), or
    /// it was retried after a wait.
    public let handler: @Sendable (_ outcome: ActionOutcome<Output>, _ completedAsync: Bool) -> Void

    /// A requirement that runs `handler` on `queue`.
    public init(
        queue: DispatchQueue? = nil,
        handler: @escaping @Sendable (_ outcome: ActionOutcome<Output>, _ completedAsync: Bool) -> Void
    ) {
        self.queue = queue
        self.handler = handler
    }
}

extension ActionSession {
    /// Performs `binding`'s action and hands its outcome to `completionRequirement`.
    @discardableResult
    public func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant? = nil,
        cancellation: ActionCancellation? = nil,
        completionRequirement: ActionCompletionRequirement<A.Output>
    ) -> ActionRequestID {
        let target = completionTarget(completionRequirement.queue, for: A.self)
        let report = CompletedAsyncReport()
        let handler = completionRequirement.handler
        return dispatch(binding, input: input, deadline: deadline, target: target, cancellation: cancellation, asyncReport: report) { outcome in
            handler(outcome, report.completedAsync)
        }
    }
}
