/// Something that runs an action's code in the right place: a thread, a serial queue, a pool.
///
/// Actions declare their executor (see ``Action/executor``); the session hops to it once and
/// delivers completion back on it when the caller chose no completion queue.
public protocol ActionExecutor: Sendable {
    /// A name for logs.
    var name: String { get }

    /// Whether the calling code is already running on this executor.
    var isCurrent: Bool { get }

    /// Runs `work` on this executor, now or later.
    func submit(_ work: @escaping @Sendable () -> Void)
}

extension ActionExecutor {
    /// Runs `work` inline when already on this executor, otherwise submits it: no needless hop.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        if isCurrent {
            work()
        } else {
            submit(work)
        }
    }
}
