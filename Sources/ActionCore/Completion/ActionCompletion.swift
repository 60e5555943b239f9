/// The completion object an action's `perform` receives: it reports the outcome exactly once.
///
/// Return `completion.completedSync(outcome)` when the outcome is known, or keep the handle
/// returned by `completion.willCompleteAsync()`, return it, and call
/// ``AsyncHandle/completed(_:)`` later from any thread. A second completion, or one after
/// the deadline, is logged and reported to dispatch observers, never delivered and never a crash.
public final class ActionCompletion<Output: Sendable>: Sendable {
    /// The value `perform` returns, proving it either completed or promised to complete later.
    public class Status: @unchecked Sendable {
        // Immutable and empty; non-final only so that AsyncHandle can be returned as a Status.
        @usableFromInline
        init() {}
    }

    /// A promise to complete later: complete it exactly once, from any thread.
    public final class AsyncHandle: Status, @unchecked Sendable {
        private let completion: ActionCompletion<Output>

        fileprivate init(_ completion: ActionCompletion<Output>) {
            self.completion = completion
        }

        /// Reports the outcome.
        public func completed(_ outcome: ActionOutcome<Output>) {
            completion.receive(outcome)
        }
    }

    /// Why a completion was not delivered.
    @usableFromInline
    enum Rejection {
        case secondCompletion
        case afterTermination(ActionError.Code)
    }

    @usableFromInline let run: ActionRun
    @usableFromInline let deliver: @Sendable (ActionOutcome<Output>) -> Void
    @usableFromInline let reject: @Sendable (Rejection, ActionOutcomeSummary) -> Void

    @inlinable
    init(
        run: ActionRun,
        deliver: @escaping @Sendable (ActionOutcome<Output>) -> Void,
        reject: @escaping @Sendable (Rejection, ActionOutcomeSummary) -> Void
    ) {
        self.run = run
        self.deliver = deliver
        self.reject = reject
    }

    /// The identity of the perform this completion belongs to.
    var requestID: ActionRequestID { run.id }

    /// Reports the outcome now and returns the status `perform` must return.
    @inlinable
    public func completedSync(_ outcome: ActionOutcome<Output>) -> Status {
        receive(outcome)
        return Status()
    }

    /// Promises to complete later; return the handle from `perform` and complete it once.
    public func willCompleteAsync() -> AsyncHandle {
        run.markCompletingAsynchronously()
        return AsyncHandle(self)
    }

    /// Whether the outcome came, or will come, asynchronously: see ``ActionRun/completedAsync``.
    var completedAsync: Bool { run.completedAsync }

    /// Funnels every completion through the run's state machine: the first one wins.
    @inlinable
    func receive(_ outcome: ActionOutcome<Output>) {
        switch run.actionCompleted() {
        case .deliver:
            deliver(outcome)
        case .rejectSecondCompletion:
            reject(.secondCompletion, outcome.summary)
        case .rejectAfterTermination(let code):
            reject(.afterTermination(code), outcome.summary)
        }
    }
}
