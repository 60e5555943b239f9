/// Every perform of every session in the process, observable in one place (Flint's
/// `ActionDispatcher`): an observer added here sees what each session's own observers see.
///
/// Workers perform in ``ActionSession``s, so an observer added here in a worker process sees
/// every request the worker runs.
public final class ActionDispatcher: Sendable {
    /// The process's dispatcher.
    public static let shared = ActionDispatcher()

    let observers = ObserverNotifier()

    private init() {}

    /// Adds an observer of every perform of every session.
    ///
    /// Each session delivers to it on the session's observer queue, so it sees one session's
    /// events in order; events of different sessions may arrive concurrently.
    public func addObserver(_ observer: any ActionDispatchObserver) {
        observers.add(observer)
    }
}
