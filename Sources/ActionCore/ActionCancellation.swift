import Locking

/// A way to cancel a perform from outside: pass one to `perform`, call ``cancel()`` later.
///
/// Cancelling ends the perform with ``ActionError/Code/cancelled`` (the action sees
/// ``ActionContext/isCancelled`` and its ``ActionContext/onCancel(_:)`` handlers run), and stops
/// any retry that has not started. Cancelling after the outcome was delivered does nothing.
///
/// ```swift
/// let cancellation = ActionCancellation()
/// session.perform(named: "Clock.sleep", jsonInput: input, cancellation: cancellation) { print($0) }
/// cancellation.cancel()
/// ```
public final class ActionCancellation: Sendable {
    private enum State {
        case armed([@Sendable () -> Void])
        case cancelled
    }

    private let state = Locked(State.armed([]))

    /// A cancellation not yet requested.
    public init() {}

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        state.withLock { if case .cancelled = $0 { return true } else { return false } }
    }

    /// Cancels the perform; safe to call from any thread, any number of times.
    public func cancel() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            defer { state = .cancelled }
            if case .armed(let handlers) = state { return handlers }
            return []
        }
        handlers.forEach { $0() }
    }

    /// Runs `handler` on ``cancel()``, or at once if that already happened.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let alreadyCancelled = state.withLock { state -> Bool in
            guard case .armed(var handlers) = state else { return true }
            handlers.append(handler)
            state = .armed(handlers)
            return false
        }
        if alreadyCancelled { handler() }
    }
}
