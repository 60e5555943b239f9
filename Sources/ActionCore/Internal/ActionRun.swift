import Locking
import Synchronization

/// One perform in flight: its identity, its ``ActionRunState`` and its deadline's timer entry,
/// behind one lock.
@usableFromInline
final class ActionRun: Sendable {
    private struct Guarded {
        var phase = ActionRunState.running(cancelHandlers: [])
        var deadlineEntry: ActionDeadlineTimer.Token?
    }

    @usableFromInline let id: ActionRequestID
    @usableFromInline let deadline: ContinuousClock.Instant?
    private let timer: ActionDeadlineTimer
    private let guarded = Locked(Guarded())
    private let endsAsynchronously = Atomic(false)

    @usableFromInline
    init(id: ActionRequestID, deadline: ContinuousClock.Instant?, timer: ActionDeadlineTimer = .shared) {
        self.id = id
        self.deadline = deadline
        self.timer = timer
    }

    /// Runs `expire` at the deadline unless the run ends first; the entry (and what `expire`
    /// holds) is dropped as soon as the run ends.
    @usableFromInline
    func armDeadline(_ expire: @escaping @Sendable () -> Void) {
        guard let deadline else { return }
        let entry = timer.schedule(at: deadline, expire)
        let ended = guarded.withLock { guarded -> Bool in
            guard case .running = guarded.phase else { return true }
            guarded.deadlineEntry = entry
            return false
        }
        if ended { timer.cancel(entry) }
    }

    @usableFromInline
    func actionCompleted() -> ActionRunState.CompletionDecision {
        let (decision, entry) = guarded.withLock { guarded in
            (guarded.phase.actionCompleted(), guarded.deadlineEntry.take())
        }
        if let entry { timer.cancel(entry) }
        return decision
    }

    /// Ends the run with `code` and runs the cancel handlers (outside the lock).
    @usableFromInline
    func terminate(_ code: ActionError.Code) -> Bool {
        let (decision, entry) = guarded.withLock { guarded in
            (guarded.phase.terminate(code), guarded.deadlineEntry.take())
        }
        if let entry { timer.cancel(entry) }
        switch decision {
        case .deliver(let handlers):
            handlers.forEach { $0() }
            return true
        case .ignore:
            return false
        }
    }

    @usableFromInline
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        if !guarded.withLock({ $0.phase.addCancelHandler(handler) }) {
            handler()
        }
    }

    /// The action promised to complete later (`willCompleteAsync`), or the perform ended
    /// without it (a timeout, a cancellation): Flint's `completedAsync`.
    @usableFromInline
    var completedAsync: Bool { endsAsynchronously.load(ordering: .acquiring) }

    @usableFromInline
    func markCompletingAsynchronously() {
        endsAsynchronously.store(true, ordering: .releasing)
    }

    @usableFromInline
    var isTerminated: Bool {
        guarded.withLock { $0.phase.isTerminated }
    }
}
