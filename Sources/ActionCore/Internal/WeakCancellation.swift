/// An ``ActionCancellation`` held without keeping it alive.
///
/// A retried perform's handlers (each attempt's completion, the wait before the next) need the
/// caller's cancellation, and the cancellation holds those handlers until it is cancelled or
/// released: held strongly, each would keep the other alive forever, and with it every
/// attempt's perform, input and completion. Whoever can still cancel holds the cancellation;
/// once nobody does, nobody can cancel, and the retries go on as if none had been passed.
struct WeakCancellation: Sendable {
    weak var cancellation: ActionCancellation?

    init(_ cancellation: ActionCancellation?) {
        self.cancellation = cancellation
    }
}
