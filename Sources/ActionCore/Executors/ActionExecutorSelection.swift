/// Where an action declares it runs: the session's main serial queue, or an executor of its own.
public enum ActionExecutorSelection: Sendable {
    /// The main serial queue of the ``ActionSession`` performing the action (the default):
    /// actions of one session then run one at a time, in submission order.
    case sessionMain
    /// A specific executor, shared by every session.
    case executor(any ActionExecutor)
}

extension ActionExecutorSelection {
    @inlinable
    var isSessionMain: Bool {
        if case .sessionMain = self { return true }
        return false
    }
}
