import Locking

/// Holds a strictly serial session's queue from an action's start to its outcome: the outcome
/// calls ``end()``, the queue's `submit { end in }` hands over its `end` with ``started(_:)``,
/// whichever comes first. (A perform that ends before its action starts, at a deadline, ends
/// before it is started.)
final class ExecutorGate: Sendable {
    private enum State {
        case waiting
        case started(@Sendable () -> Void)
        case ended
    }

    private let state = Locked(State.waiting)

    /// The action starts; `end` frees the queue.
    func started(_ end: @escaping @Sendable () -> Void) {
        let endNow = state.withLock { state -> Bool in
            if case .ended = state { return true }
            state = .started(end)
            return false
        }
        if endNow { end() }
    }

    /// The perform has its outcome: the queue is free (once).
    func end() {
        let end = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state = .ended }
            if case .started(let end) = state { return end }
            return nil
        }
        end?()
    }
}
