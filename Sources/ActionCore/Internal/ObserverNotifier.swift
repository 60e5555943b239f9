import Dispatch
import Locking

/// Delivers observer events on a serial queue of their own, so observers never slow an action
/// and always see one perform's events in order.
final class ObserverNotifier: Sendable {
    private let queue: DispatchQueue
    private let observers = Locked<[any ActionDispatchObserver]>([])

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func add(_ observer: any ActionDispatchObserver) {
        observers.withLock { $0.append(observer) }
    }

    /// Whether anyone observes: callers check it first on hot paths, so that no event closure
    /// is even made (and allocated) when no one would receive it.
    var isEmpty: Bool { observers.withLock { $0.isEmpty } }

    func notify(_ event: @escaping @Sendable (any ActionDispatchObserver) -> Void) {
        let current = observers.withLock { $0 }
        guard !current.isEmpty else { return }
        queue.async {
            current.forEach(event)
        }
    }
}
