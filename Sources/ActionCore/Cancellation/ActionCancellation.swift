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
    private struct State {
        var isCancelled = false
        /// The handlers to run on cancel. Nearly every cancellation has one (the perform it was
        /// passed to): it has a slot of its own, so no array is made per perform.
        var first: (@Sendable () -> Void)?
        var more: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    /// A cancellation not yet requested.
    public init() {}

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        state.withLock { $0.isCancelled }
    }

    /// Cancels the perform; safe to call from any thread, any number of times.
    public func cancel() {
        // Taken out under the lock (and so run once), run outside it.
        let (first, more) = state.withLock { state in
            defer { state = State(isCancelled: true) }
            return (state.first, state.more)
        }
        first?()
        more.forEach { $0() }
    }

    /// Runs `handler` on ``cancel()``, or at once if that already happened.
    @usableFromInline
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let alreadyCancelled = state.withLock { state -> Bool in
            guard !state.isCancelled else { return true }
            if state.first == nil { state.first = handler } else { state.more.append(handler) }
            return false
        }
        if alreadyCancelled { handler() }
    }
}
