/// Watches every perform of a session: analytics, logging, debugging tools.
///
/// Observers are called off the action's path, on the session's observer queue, one event at a
/// time and in order: `actionWillBegin` always precedes `actionDidComplete` of the same perform.
/// Every method has an empty default.
public protocol ActionDispatchObserver: Sendable {
    /// The perform was requested and is about to run on its executor.
    func actionWillBegin(_ event: ActionDispatchEvent)
    /// The perform ended with `outcome` (including timeouts and cancellations).
    func actionDidComplete(_ event: ActionDispatchEvent, outcome: ActionOutcomeSummary)
    /// The perform passed its deadline; `actionDidComplete` follows with ``ActionError/Code/timedOut``.
    func actionTimedOut(_ event: ActionDispatchEvent)
    /// The action completed again, or after its deadline; the outcome was not delivered.
    func actionCompletedTwice(_ event: ActionDispatchEvent, rejection: ActionCompletionRejection)
}

extension ActionDispatchObserver {
    /// Does nothing.
    public func actionWillBegin(_ event: ActionDispatchEvent) {}
    /// Does nothing.
    public func actionDidComplete(_ event: ActionDispatchEvent, outcome: ActionOutcomeSummary) {}
    /// Does nothing.
    public func actionTimedOut(_ event: ActionDispatchEvent) {}
    /// Does nothing.
    public func actionCompletedTwice(_ event: ActionDispatchEvent, rejection: ActionCompletionRejection) {}
}
