import Locking

/// The caller's ``ActionCancellation``, held for one handler of a retried perform until that
/// handler runs, then let go.
///
/// The cancellation holds each attempt's perform (its cancel handler) and the wait before the
/// next attempt; those hold the handler that decides on the next attempt, which needs the
/// cancellation. Held for good, each would keep the other alive for ever, and with them every
/// attempt's input and the caller's completion. An attempt's outcome comes once and a wait ends
/// once, so holding the cancellation only until then cuts the loop as soon as it can, and still
/// sees a cancel that came just before (a weak hold would lose one whose caller let go of the
/// cancellation right after cancelling).
final class CancellationHandOff: Sendable {
    private let held: Locked<ActionCancellation?>

    init(_ cancellation: ActionCancellation?) {
        held = Locked(cancellation)
    }

    /// The cancellation, the first time; `nil` after that.
    func take() -> ActionCancellation? {
        held.withLock { held in
            defer { held = nil }
            return held
        }
    }
}
