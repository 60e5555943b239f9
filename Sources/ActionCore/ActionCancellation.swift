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
        /// Waiting, with the handlers to run. Nearly every cancellation has one handler (the
        /// perform it was passed to): it has a slot of its own, so no array is made per perform.
        case armed(first: (@Sendable () -> Void)?, more: [@Sendable () -> Void])
        case cancelled
    }

    private let state = Locked(State.armed(first: nil, more: []))

    /// A cancellation not yet requested.
    public init() {}

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        state.withLock { if case .cancelled = $0 { return true } else { return false } }
    }

    /// Cancels the perform; safe to call from any thread, any number of times.
    public func cancel() {
        let handlers = state.withLock { state -> (first: (@Sendable () -> Void)?, more: [@Sendable () -> Void]) in
            defer { state = .cancelled }
            if case .armed(let first, let more) = state { return (first, more) }
            return (nil, [])
        }
        handlers.first?()
        handlers.more.forEach { $0() }
    }

    /// Runs `handler` on ``cancel()``, or at once if that already happened.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let alreadyCancelled = state.withLock { state -> Bool in
            guard case .armed(let first, var more) = state else { return true }
            if first == nil {
                state = .armed(first: handler, more: more)
            } else {
                more.append(handler)
                state = .armed(first: first, more: more)
            }
            return false
        }
        if alreadyCancelled { handler() }
    }
}
