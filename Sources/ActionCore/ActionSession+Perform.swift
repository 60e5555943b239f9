import Dispatch
import Foundation
import Logging

extension ActionSession {
    /// Performs `binding`'s action with `input`; callable from any thread.
    ///
    /// - Parameters:
    ///   - binding: The action, e.g. `EchoFeature.say`.
    ///   - input: The action's input.
    ///   - deadline: When the perform fails with ``ActionError/Code/timedOut``; `nil` uses the
    ///     session's ``ActionSessionConfiguration/defaultTimeout``.
    ///   - completionQueue: Where `completion` runs; `nil` runs it on the action's executor (so
    ///     an action that blocks its serial queue also holds back its own timeout outcome).
    ///   - completion: Receives the outcome, exactly once.
    /// - Returns: The perform's identity, as seen by dispatch observers.
    @discardableResult
    public func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant? = nil,
        completionQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> ActionRequestID {
        let target: CompletionTarget = completionQueue.map { .queue($0) } ?? .executor(executor(for: A.executor))
        return dispatch(binding, input: input, deadline: deadline, target: target, completion: completion).requestID
    }

    /// Performs an action that takes no input; see ``perform(_:input:deadline:completionQueue:completion:)``.
    @discardableResult
    public func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        deadline: ContinuousClock.Instant? = nil,
        completionQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> ActionRequestID where A.Input == NoInput {
        perform(binding, input: NoInput(), deadline: deadline, completionQueue: completionQueue, completion: completion)
    }

    /// The single path every perform takes: observers, timeout, executor hop, exactly-once delivery.
    func dispatch<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant?,
        target: CompletionTarget,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> ActionCompletion<A.Output> {
        let executor = executor(for: A.executor)
        let run = ActionRun(id: .next(), deadline: deadline ?? configuration.defaultTimeout.map { .now + $0 })
        let event = ActionDispatchEvent(
            requestID: run.id,
            sessionName: name,
            featureName: binding.featureName,
            actionName: binding.fullName,
            userInitiated: userInitiated,
            executorName: executor.name,
            date: Date()
        )
        let actionLogger = logger(forAction: binding.fullName, requestID: run.id)

        let actionCompletion = ActionCompletion<A.Output>(
            run: run,
            deliver: { [self] outcome in
                let summary = outcome.summary
                recordInActionStacks(featureName: binding.featureName, actionName: binding.fullName, outcome: summary)
                observers.notify { $0.actionDidComplete(event, outcome: summary) }
                target.run { completion(outcome) }
            },
            terminated: { [observers] error in
                actionLogger.notice("Action ended without completing: \(error.message)", metadata: ["action.outcome": "\(error.code)"])
                if error.code == .timedOut {
                    observers.notify { $0.actionTimedOut(event) }
                }
            },
            reject: { [observers] reason, summary in
                let rejection = ActionCompletionRejection(reason: reason.publicReason, rejectedOutcome: summary)
                actionLogger.warning("Completion not delivered: \(rejection.error.message)", metadata: ["action.outcome": "\(summary)"])
                observers.notify { $0.actionCompletedTwice(event, rejection: rejection) }
            }
        )

        observers.notify { $0.actionWillBegin(event) }
        if let deadline = run.deadline {
            scheduleTimeout(at: deadline, of: actionCompletion, actionName: binding.fullName)
        }
        executor.submit { [self] in
            // The caller already has a timeout or cancellation outcome: do not start stale work.
            guard !run.isTerminated else {
                actionLogger.debug("Skipped an action that ended before it started")
                return
            }
            let context = ActionContext(
                input: input,
                actionName: binding.fullName,
                requestID: run.id,
                session: self,
                logger: actionLogger,
                deadline: run.deadline,
                run: run
            )
            _ = A.perform(context: context, completion: actionCompletion)
        }
        return actionCompletion
    }

    private func logger(forAction actionName: String, requestID: ActionRequestID) -> Logger {
        var logger = self.logger
        logger[metadataKey: "action.name"] = "\(actionName)"
        logger[metadataKey: "action.request"] = "\(requestID)"
        return logger
    }

    private func scheduleTimeout<Output>(at deadline: ContinuousClock.Instant, of completion: ActionCompletion<Output>, actionName: String) {
        let timeout = deadline - .now
        let (seconds, attoseconds) = timeout.components
        // Beyond a century there is nothing useful to wait for, and DispatchTime would overflow.
        guard seconds < 3_153_600_000 else { return }
        let nanoseconds = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        let milliseconds = Int((timeout / .milliseconds(1)).rounded(.up))
        let message = "\(actionName) did not complete before its deadline (\(max(0, milliseconds)) ms after it was requested)"
        // The block keeps the completion alive until the deadline, so even an action that drops
        // its async handle (never completes) gets its timeout.
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            completion.terminate(with: ActionError(code: .timedOut, message: message))
        }
    }
}

extension ActionCompletion.Rejection {
    var publicReason: ActionCompletionRejection.Reason {
        switch self {
        case .secondCompletion:
            return .secondCompletion
        case .afterTermination(let code):
            return code == .timedOut ? .afterTimeout : .afterCancellation
        }
    }
}
