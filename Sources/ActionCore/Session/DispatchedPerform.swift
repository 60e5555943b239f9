import struct Foundation.Date

/// One dispatched perform: the session, the action and its input, the dispatch event, where
/// the caller wants the outcome and its handler.
///
/// One object, captured alone by each of the perform's handlers (the deadline, the
/// cancellation, the start, the completion's two): a closure that captures a single object
/// needs no context of its own, so none of them costs an allocation beyond this one. The
/// action's ``ActionCompletion`` is made when it starts.
@usableFromInline
final class DispatchedPerform<F: Feature, A: Action>: Sendable {
    @usableFromInline let session: ActionSession
    @usableFromInline let binding: ActionBinding<F, A>
    @usableFromInline let input: A.Input
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
        session: ActionSession, binding: ActionBinding<F, A>, input: A.Input, event: ActionDispatchEvent,
        target: CompletionTarget, run: ActionRun, gate: ExecutorGate?, asyncReport: CompletedAsyncReport?,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) {
        self.session = session
        self.binding = binding
        self.input = input
        self.event = event
        self.target = target
        self.run = run
        self.gate = gate
        self.asyncReport = asyncReport
        self.completion = completion
    }

    /// Runs the action on the thread it was submitted to, holding the session's line in a
    /// strictly serial session (no turn: nested in the running action's synchronous part, it
    /// holds nothing).
    @inlinable
    func start(holding turn: SerialActionLine.Turn?) {
        if let turn { gate?.started(turn) } else { gate?.end() }
        start()
    }

    /// Runs the action, unless the perform already ended or its feature is unavailable.
    @inlinable
    func start() {
        // The caller already has a timeout or cancellation outcome: do not start stale work.
        guard !run.isTerminated else {
            skipStale()
            return
        }
        let completion = ActionCompletion<A.Output>(
            run: run,
            deliver: { [self] outcome in deliver(outcome) },
            reject: { [self] reason, summary in reject(reason, summary) }
        )
        if let feature = binding.conditionalFeature, !FeatureAvailability.shared.isAvailable(feature) {
            let message = "\(event.actionName) is not available: its feature \(feature.name) is switched off or its conditions do not hold"
            _ = completion.completedSync(.failure(ActionError(code: .featureUnavailable, message: message)))
            return
        }
        let context = ActionContext(
            input: input, actionName: event.actionName, requestID: run.id, session: session, deadline: run.deadline, run: run
        )
        _ = A.perform(context: context, completion: completion)
    }

    /// The perform ended (a timeout, a cancellation) before its action could start.
    @usableFromInline
    func skipStale() {
        session.logger(forAction: event.actionName, requestID: run.id).debug("Skipped an action that ended before it started")
        gate?.end()
    }

    /// The deadline passed first.
    ///
    /// The time it had is worked out now, from when it was dispatched (the event's date), not
    /// kept from the start: that was a clock read and a `Duration` subtraction on every perform,
    /// for a message only a timeout shows (the timer never fires early, so it is the time it
    /// was given, to the millisecond).
    @usableFromInline
    func timeOut() {
        let milliseconds = Int(max(0, Date().timeIntervalSince(event.date)) * 1000)
        terminate(with: ActionError(
            code: .timedOut,
            message: "\(event.actionName) did not complete before its deadline (\(milliseconds) ms after it was requested)"
        ))
    }

    /// The caller cancelled first.
    @usableFromInline
    func cancel() {
        terminate(with: ActionError(code: .cancelled, message: "\(event.actionName) was cancelled by its caller"))
    }

    /// Ends the perform with `error` unless it already ended: whatever the action does later is
    /// rejected.
    @usableFromInline
    func terminate(with error: ActionError) {
        if run.terminate(error.code) {
            run.markCompletingAsynchronously()
            terminated(error)
            deliver(.failure(error))
        }
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
