import ActionCore
import ActionWire
import Locking

/// Outcomes finished on other threads (the actions' executors, the deadline timer) waiting for
/// the worker's I/O loop. One job on the loop takes every outcome that arrived since the last:
/// a job per outcome cost two allocations (its closure and the loop's reabstraction of it) and
/// a turn of the loop's lock each.
final class FinishedInbox: Sendable {
    struct Finished: Sendable {
        let request: WireRequest
        let outcome: JSONBytesOutcome
    }

    private let waiting = Locked<[Finished]>([])

    /// Adds an outcome; `true` when the inbox was empty, so the caller must have it taken (the
    /// job that takes it takes everything that comes after it too).
    func add(_ request: WireRequest, _ outcome: JSONBytesOutcome) -> Bool {
        waiting.withLock { waiting in
            waiting.append(Finished(request: request, outcome: outcome))
            return waiting.count == 1
        }
    }

    /// Swaps what waits with `spare` (empty, its capacity kept for the next swap).
    func take(into spare: inout [Finished]) {
        waiting.withLock { swap(&$0, &spare) }
    }
}
