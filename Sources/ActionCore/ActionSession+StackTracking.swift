extension ActionSession {
    /// A copy of this session's action stack tracker.
    public var actionStacks: ActionStackTracker {
        stackTracker.withLock { $0 }
    }

    /// A report of this session's open action stacks.
    public var actionStackReport: ActionStacksReport {
        stackTracker.withLock { $0.report(sessionName: name) }
    }

    /// Records a completed perform in the session's stacks.
    func recordInActionStacks(featureName: String, actionName: String, outcome: ActionOutcomeSummary) {
        let record = ActionStackRecord(
            sessionName: name,
            featureName: featureName,
            actionName: actionName,
            outcome: outcome,
            userInitiated: userInitiated
        )
        let update = stackTracker.withLock { $0.record(record) }
        if let closed = update.closedStack {
            logger.debug("Action stack closed", metadata: ["action.stack": "\(closed.id)", "action.name": "\(actionName)"])
        }
    }
}
