import Synchronization

/// Calls its action the first time ``end()`` is called, and never again: an executor's `end`
/// handle, which the work it ran may call from any thread. Work that drops the handle without
/// calling it ends it then (`deinit`), so a queue it holds is never held for ever.
final class EndOnce: Sendable {
    private let pending = Atomic(true)
    private let action: @Sendable () -> Void

    init(_ action: @escaping @Sendable () -> Void) { self.action = action }

    func end() {
        if pending.exchange(false, ordering: .acquiringAndReleasing) { action() }
    }

    deinit {
        end()
    }
}
