import Locking

/// One perform in flight: its identity and its ``ActionRunState`` behind a lock.
final class ActionRun: Sendable {
    let id: ActionRequestID
    let deadline: ContinuousClock.Instant?
    private let state = Locked(ActionRunState.running(cancelHandlers: []))

    init(id: ActionRequestID, deadline: ContinuousClock.Instant?) {
        self.id = id
        self.deadline = deadline
    }

    func actionCompleted() -> ActionRunState.CompletionDecision {
        state.withLock { $0.actionCompleted() }
    }

    /// Ends the run with `code` and runs the cancel handlers (outside the lock).
    func terminate(_ code: ActionError.Code) -> Bool {
        switch state.withLock({ $0.terminate(code) }) {
        case .deliver(let handlers):
            handlers.forEach { $0() }
            return true
        case .ignore:
            return false
        }
    }

    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        if !state.withLock({ $0.addCancelHandler(handler) }) {
            handler()
        }
    }

    var isTerminated: Bool {
        state.withLock { $0.isTerminated }
    }
}
