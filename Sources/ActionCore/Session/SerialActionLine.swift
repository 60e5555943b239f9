import DequeModule
import Locking

/// A strictly serial session's line: its main-queue actions start one at a time, each after the
/// one before it has its outcome (``ActionSessionConfiguration/strictlySerial``).
///
/// A line of its own rather than a suspended queue: an outcome delivered on the session's queue
/// is queued there before the next action's start, so the caller hears of each outcome before
/// the next action runs; it works on the main queue too (which cannot be suspended); and an
/// action whose completion is dropped without completing frees the line (``Turn``'s `deinit`)
/// instead of leaving a queue suspended for ever.
@usableFromInline
final class SerialActionLine: Sendable {
    private struct State {
        var isBusy = false
        var waiting: Deque<@Sendable () -> Void> = []
    }

    private let state = Locked(State())
    private let executor: SerialQueueExecutor
    /// Set while a turn's action runs its synchronous part on the session's queue: a perform
    /// nested there runs inline (as on any serial queue) instead of waiting for the outer
    /// action's outcome, which may depend on it. Read and written only on that queue.
    private nonisolated(unsafe) var inSynchronousPart = false

    init(executor: SerialQueueExecutor) {
        self.executor = executor
    }

    /// Starts `start` on the session's queue when the line is free, with a turn whose `end`
    /// frees it; a perform nested in the synchronous part of the running action starts at once,
    /// with no turn.
    @usableFromInline
    func submit(_ start: @escaping @Sendable (Turn?) -> Void) {
        if executor.isCurrent, inSynchronousPart {
            start(nil)
            return
        }
        let run: @Sendable () -> Void = { [self] in
            let turn = Turn(line: self)
            let outer = inSynchronousPart
            inSynchronousPart = true
            start(turn)
            inSynchronousPart = outer
        }
        let startNow = state.withLock { state -> Bool in
            if state.isBusy {
                state.waiting.append(run)
                return false
            }
            state.isBusy = true
            return true
        }
        if startNow { executor.submit(run) }
    }

    /// The running action has its outcome: the next one, if any, goes to the queue.
    fileprivate func advance() {
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            guard let next = state.waiting.popFirst() else {
                state.isBusy = false
                return nil
            }
            return next
        }
        // Always queued, never inline: whatever the ending outcome queued on the session's
        // queue (its completion handler) runs first.
        if let next { executor.enqueue(next) }
    }

    /// One action's hold on the line, freed once: at its outcome, or when the perform is gone
    /// without one.
    @usableFromInline
    final class Turn: Sendable {
        private let line: SerialActionLine
        private let ended = Locked(false)

        fileprivate init(line: SerialActionLine) { self.line = line }

        func end() {
            guard ended.withLock({ ended in defer { ended = true }; return !ended }) else { return }
            line.advance()
        }

        deinit {
            if !ended.withLock({ $0 }) { line.advance() }
        }
    }
}
