extension ActionSession {
    /// A copy of this session's action stack tracker.
    public var actionStacks: ActionStackTracker {
        stackTracker.withLock { $0 }
    }

    /// A report of this session's open action stacks.
    public var actionStackReport: ActionStacksReport {
        stackTracker.withLock { $0.report(sessionName: name) }
    }

    /// Ends the session as far as its action stacks go: closes every open stack (sub-stacks with
    /// their parents) and returns the closed root stacks. The session stays usable; its next
    /// perform opens a new stack. A worker ends its session of that name when a client ends it
    /// over the bus (`ActionClient.endSession(_:)`), and the coordinator closes its stacks too.
    @discardableResult
    public func end() -> [ActionStackSnapshot] {
        let closed = stackTracker.withLock { $0.closeStacks(sessionName: name) }
        if !closed.isEmpty {
            logger.debug("Session ended", metadata: ["action.stacksClosed": "\(closed.count)"])
        }
        return closed
    }

    /// What every delivered outcome does before it reaches its caller: it goes into the
    /// session's stacks, and to the observers.
    ///
    /// A hosted session (a worker's) keeps no stacks of its own: its host's coordinator keeps
    /// them for every worker, from the outcomes the host forwards and the unrequested performs
    /// reported to it here. A copy on the worker was never read, and cost a worker a twentieth
    /// of its CPU.
    @usableFromInline
    func recordOutcome(of event: ActionDispatchEvent, summary: ActionOutcomeSummary, error: ActionError?, requestedByHost: Bool) {
        // A hosted session's own performs need no record at all: its host forwards them.
        if unrequestedPerformReporter == nil || !requestedByHost {
            let record = ActionStackRecord(
                sessionName: name, featureName: event.featureName, actionName: event.actionName, outcome: summary,
                userInitiated: userInitiated
            )
            if let unrequestedPerformReporter {
                unrequestedPerformReporter(UnrequestedPerform(record: record, errorMessage: error?.message))
            } else {
                recordInActionStacks(record)
            }
        }
        if !observers.isEmpty { observers.notify { $0.actionDidComplete(event, outcome: summary) } }
    }

    /// Records a completed perform in the session's stacks.
    private func recordInActionStacks(_ record: ActionStackRecord) {
        let update = stackTracker.withLock { $0.record(record) }
        if let closed = update.closedStack {
            logger.debug("Action stack closed", metadata: ["action.stack": "\(closed.id)", "action.name": "\(record.actionName)"])
        }
    }
}
