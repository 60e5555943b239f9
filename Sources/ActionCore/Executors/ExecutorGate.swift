import Locking

/// A strictly serial perform's hold on its session's line, from its action's start to its
/// outcome: the outcome calls ``end()``, the line hands over the turn with ``started(_:)``,
/// whichever comes first. (A perform that ends before its action starts, at a deadline, ends
/// before it is started, and its turn is given back at once.)
@usableFromInline
final class ExecutorGate: Sendable {
    private enum State {
        case waiting
        case started(SerialActionLine.Turn)
        case ended
    }

    private let state = Locked(State.waiting)

    @usableFromInline
    init() {}

    /// The action starts holding `turn`.
    @usableFromInline
    func started(_ turn: SerialActionLine.Turn) {
        let endNow = state.withLock { state -> Bool in
            if case .ended = state { return true }
            state = .started(turn)
            return false
        }
        if endNow { turn.end() }
    }

    /// The perform has its outcome: the line is free (once).
    @usableFromInline
    func end() {
        let turn = state.withLock { state -> SerialActionLine.Turn? in
            defer { state = .ended }
            if case .started(let turn) = state { return turn }
            return nil
        }
        turn?.end()
    }
}
