import Locking

/// Connects a task cancellation handler to a perform that may not have started yet.
final class CancellationRelay: Sendable {
    private enum State {
        case idle
        case armed(@Sendable () -> Void)
        case cancelled
    }

    private let state = Locked(State.idle)

    /// Sets what cancelling does; runs it at once when cancellation came first.
    func arm(_ cancel: @escaping @Sendable () -> Void) {
        let alreadyCancelled = state.withLock { state -> Bool in
            if case .cancelled = state { return true }
            state = .armed(cancel)
            return false
        }
        if alreadyCancelled { cancel() }
    }

    func cancel() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state = .cancelled }
            if case .armed(let action) = state { return action }
            return nil
        }
        action?()
    }
}
