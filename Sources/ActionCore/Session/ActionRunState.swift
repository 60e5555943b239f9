/// The lifecycle of one perform: it ends exactly once, by completion or by termination
/// (timeout, cancellation); anything after that is rejected and reported.
@usableFromInline
enum ActionRunState {
    case running(cancelHandlers: [@Sendable () -> Void])
    case completed
    case terminated(ActionError.Code)

    /// What to do with a completion from the action.
    @usableFromInline
    enum CompletionDecision {
        case deliver
        case rejectSecondCompletion
        case rejectAfterTermination(ActionError.Code)
    }

    /// What to do when the deadline passes or the caller cancels.
    enum TerminationDecision {
        case deliver(cancelHandlers: [@Sendable () -> Void])
        case ignore
    }

    mutating func actionCompleted() -> CompletionDecision {
        switch self {
        case .running:
            self = .completed
            return .deliver
        case .completed:
            return .rejectSecondCompletion
        case .terminated(let code):
            return .rejectAfterTermination(code)
        }
    }

    mutating func terminate(_ code: ActionError.Code) -> TerminationDecision {
        switch self {
        case .running(let handlers):
            self = .terminated(code)
            return .deliver(cancelHandlers: handlers)
        case .completed, .terminated:
            return .ignore
        }
    }

    /// Registers a handler to run on termination; returns `false` when already terminated
    /// (the caller then runs it at once) and drops it when already completed.
    mutating func addCancelHandler(_ handler: @escaping @Sendable () -> Void) -> Bool {
        switch self {
        case .running(var handlers):
            handlers.append(handler)
            self = .running(cancelHandlers: handlers)
            return true
        case .completed:
            return true
        case .terminated:
            return false
        }
    }

    var isTerminated: Bool {
        if case .terminated = self { return true }
        return false
    }
}
