/// What the completion of one dispatched perform needs: the session, the action, the dispatch
/// event, where the caller wants the outcome and its handler.
///
/// One object, captured alone by each of the completion's handlers: a closure that captures a
/// single object needs no context of its own, so the three handlers cost no allocation beyond
/// this one.
@usableFromInline
final class DispatchedPerform<F: Feature, A: Action>: Sendable {
    @usableFromInline let session: ActionSession
    @usableFromInline let binding: ActionBinding<F, A>
    @usableFromInline let event: ActionDispatchEvent
    @usableFromInline let target: CompletionTarget
    @usableFromInline let run: ActionRun
    /// In a strictly serial session, what holds the session's line until the outcome.
    @usableFromInline let gate: ExecutorGate?
    /// For a caller's completion requirement: whether the outcome came asynchronously.
    @usableFromInline let asyncReport: CompletedAsyncReport?
    @usableFromInline let completion: @Sendable (ActionOutcome<A.Output>) -> Void

    @usableFromInline var requestID: ActionRequestID { run.id }

    @inlinable
    init(
        session: ActionSession, binding: ActionBinding<F, A>, event: ActionDispatchEvent, target: CompletionTarget,
        run: ActionRun, gate: ExecutorGate?, asyncReport: CompletedAsyncReport?,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) {
        self.session = session
        self.binding = binding
        self.event = event
        self.target = target
        self.run = run
        self.gate = gate
        self.asyncReport = asyncReport
        self.completion = completion
    }

    /// The outcome: into the session's stacks, to the observers, then to the caller's target.
    @inlinable
    func deliver(_ outcome: ActionOutcome<A.Output>) {
        session.recordOutcome(of: event, summary: outcome.summary, error: outcome.error, requestedByHost: target.isForwarded)
        asyncReport?.record(run.completedAsync)
        target.deliver(outcome, to: completion)
        // Only now may a strictly serial session start its next action: a handler run on the
        // session's queue is already there (inline, or queued ahead of that action's start).
        gate?.end()
    }

    /// The perform ended without the action completing (a timeout, a cancellation).
    @usableFromInline
    func terminated(_ error: ActionError) {
        session.logger(forAction: binding.fullName, requestID: requestID)
            .notice("Action ended without completing: \(error.message)", metadata: ["action.outcome": "\(error.code)"])
        if error.code == .timedOut {
            let event = self.event
            session.observers.notify { $0.actionTimedOut(event) }
        }
    }

    /// The action completed again, or after the perform had ended: not delivered.
    @usableFromInline
    func reject(_ reason: ActionCompletion<A.Output>.Rejection, _ summary: ActionOutcomeSummary) {
        let rejection = ActionCompletionRejection(reason: reason.publicReason, rejectedOutcome: summary)
        session.logger(forAction: binding.fullName, requestID: requestID)
            .warning("Completion not delivered: \(rejection.error.message)", metadata: ["action.outcome": "\(summary)"])
        let event = self.event
        session.observers.notify { $0.actionCompletedTwice(event, rejection: rejection) }
    }
}
