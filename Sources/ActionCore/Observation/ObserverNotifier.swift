import Dispatch
import Locking
import Synchronization

/// Delivers observer events on a serial queue of their own, so observers never slow an action
/// and always see one perform's events in order. A session's notifier also delivers to the
/// process-wide observers (``ActionDispatcher``), on the same queue and in the same order.
@usableFromInline
final class ObserverNotifier: Sendable {
    private let queue: DispatchQueue?
    private let observers = Locked<[any ActionDispatchObserver]>([])
    /// How many observers it has, readable without the lock (hot paths ask on every perform).
    private let count = Atomic(0)
    /// The process-wide observers, for a session's notifier.
    private let parent: ObserverNotifier?

    /// A session's notifier, delivering on a queue labelled `label`, to its own observers and
    /// to `parent`'s.
    init(label: String, parent: ObserverNotifier?) {
        queue = DispatchQueue(label: label)
        self.parent = parent
    }

    /// A list of observers that others deliver to (the process-wide one).
    init() {
        queue = nil
        parent = nil
    }

    func add(_ observer: any ActionDispatchObserver) {
        observers.withLock { $0.append(observer) }
        count.add(1, ordering: .releasing)
    }

    /// Whether anyone observes: callers check it first on hot paths, so that no event closure
    /// is even made (and allocated) when no one would receive it.
    @usableFromInline
    var isEmpty: Bool {
        count.load(ordering: .acquiring) == 0 && (parent?.isEmpty ?? true)
    }

    private var current: [any ActionDispatchObserver] {
        count.load(ordering: .acquiring) == 0 ? [] : observers.withLock { $0 }
    }

    @usableFromInline
    func notify(_ event: @escaping @Sendable (any ActionDispatchObserver) -> Void) {
        let current = self.current + (parent?.current ?? [])
        guard !current.isEmpty, let queue else { return }
        queue.async {
            current.forEach(event)
        }
    }
}
