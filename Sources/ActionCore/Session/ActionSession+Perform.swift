import Dispatch
import Foundation
import Locking
import Logging

extension ActionSession {
    /// Performs `binding`'s action with `input`; callable from any thread.
    ///
    /// - Parameters:
    ///   - binding: The action, e.g. `EchoFeature.say`.
    ///   - input: The action's input.
    ///   - deadline: When the perform fails with ``ActionError/Code/timedOut``; `nil` uses the
    ///     session's ``ActionSessionConfiguration/defaultTimeout``. Retries share it.
    ///   - completionQueue: Where `completion` runs; `nil` follows ``CallerQueue``'s rule: the
    ///     `OperationQueue` the caller runs in, else the action's executor (so an action that
    ///     blocks its serial queue also holds back its own timeout outcome).
    ///   - cancellation: Cancels the perform when its ``ActionCancellation/cancel()`` is called.
    ///   - completion: Receives the outcome (after any retries) once; never if the action drops
    ///     its completion and the perform has no deadline.
    /// - Returns: The identity of the first attempt, as seen by dispatch observers.
    @discardableResult
    public func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant? = nil,
        completionQueue: DispatchQueue? = nil,
        cancellation: ActionCancellation? = nil,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> ActionRequestID {
        dispatch(binding, input: input, deadline: deadline, target: completionTarget(completionQueue, for: A.self),
                 cancellation: cancellation, completion: completion)
    }

    /// Where a completion runs, by ``CallerQueue``'s rule: `queue`, else the caller's operation
    /// queue, else the action's executor.
    func completionTarget<A: Action>(_ queue: DispatchQueue?, for action: A.Type) -> CompletionTarget {
        queue.map { .queue($0) } ?? CallerQueue.current.map { .executor($0) } ?? .executor(executor(for: A.executor))
    }

    /// Performs an action that takes no input; see ``perform(_:input:deadline:completionQueue:cancellation:completion:)``.
    @discardableResult
    public func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        deadline: ContinuousClock.Instant? = nil,
        completionQueue: DispatchQueue? = nil,
        cancellation: ActionCancellation? = nil,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> ActionRequestID where A.Input == NoInput {
        perform(binding, input: NoInput(), deadline: deadline, completionQueue: completionQueue, cancellation: cancellation, completion: completion)
    }

    /// Performs `binding` under its action's retry policy: attempts until one succeeds, fails
    /// without ``ActionError/isRetryable``, is cancelled, or the next backoff would pass the
    /// deadline; only the last outcome reaches `completion`.
    ///
    /// - Returns: the identity of attempt `number` (the first, to callers).
    @inlinable
    func dispatch<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant?,
        target: CompletionTarget,
        cancellation: ActionCancellation?,
        attempt number: Int = 1,
        asyncReport: CompletedAsyncReport? = nil,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> ActionRequestID {
        // Resolved once: later attempts pass the resolved deadline on, so retries share it.
        let deadline = resolvedDeadline(deadline)
        guard number < A.retryPolicy.maxAttempts else {
            return dispatchPerform(binding, input: input, deadline: deadline, target: target, cancellation: cancellation,
                                   asyncReport: asyncReport, completion: completion).requestID
        }
        return dispatchRetrying(binding, input: input, deadline: deadline, target: target, cancellation: cancellation,
                                attempt: number, asyncReport: asyncReport, completion: completion)
    }

    /// An attempt that another may follow: its outcome decides whether the next one starts.
    /// Not inlinable: only actions with a retry policy come this way.
    @usableFromInline
    func dispatchRetrying<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant?,
        target: CompletionTarget,
        cancellation: ActionCancellation?,
        attempt number: Int,
        asyncReport: CompletedAsyncReport?,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> ActionRequestID {
        let policy = A.retryPolicy
        // Held only until the handler runs: the cancellation holds this attempt's perform,
        // which holds the handler.
        let handOff = CancellationHandOff(cancellation)
        return dispatchPerform(binding, input: input, deadline: deadline, target: target.immediateKeepingOrigin, cancellation: cancellation,
                               asyncReport: asyncReport) { [self] outcome in
            let cancellation = handOff.take()
            guard case .failure(let error, _) = outcome, error.isRetryable,
                  case let backoff = policy.backoff(beforeAttempt: number + 1),
                  deadline.map({ ContinuousClock.now + backoff < $0 }) ?? true
            else {
                target.deliver(outcome, to: completion)
                return
            }
            if cancellation?.isCancelled == true {
                // Cancelled after this attempt failed and before the next began: the perform
                // ends `cancelled`, as it does when the cancel comes during the backoff (the
                // next attempt ends at once, before its action starts).
                _ = dispatch(binding, input: input, deadline: deadline, target: target, cancellation: cancellation,
                             attempt: number + 1, asyncReport: asyncReport, completion: completion)
                return
            }
            logger.info("Retrying after a retryable failure", metadata: [
                "action.name": "\(binding.fullName)", "action.attempt": "\(number + 1)", "action.maxAttempts": "\(policy.maxAttempts)",
                "action.backoff": "\(backoff)", "action.error": "\(error)",
            ])
            // Whichever comes first, the backoff's end or a cancellation, starts the next attempt
            // (a cancelled one ends at once with `cancelled`). Its outcome comes after a wait.
            asyncReport?.record(true)
            let started = Locked(false)
            // The same for the wait: the cancellation holds `next` until it is cancelled.
            let nextHandOff = CancellationHandOff(cancellation)
            let next: @Sendable () -> Void = { [self] in
                guard started.withLock({ started in defer { started = true }; return !started }) else { return }
                _ = dispatch(binding, input: input, deadline: deadline, target: target, cancellation: nextHandOff.take(),
                             attempt: number + 1, asyncReport: asyncReport, completion: completion)
            }
            cancellation?.onCancel(next)
            DispatchQueue.global().asyncAfter(deadline: .now() + backoff.dispatchInterval, execute: next)
        }.requestID
    }

    /// `deadline`, or the session's default timeout from now when none is given.
    @inlinable
    func resolvedDeadline(_ deadline: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
        deadline ?? configuration.defaultTimeout.map { .now + $0 }
    }

    /// The single path every attempt takes: observers, timeout, cancellation, executor hop,
    /// exactly-once delivery. Returns the perform, which can also be cancelled directly.
    @inlinable
    func dispatchPerform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        input: A.Input,
        deadline: ContinuousClock.Instant?,
        target: CompletionTarget,
        cancellation: ActionCancellation?,
        asyncReport: CompletedAsyncReport?,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) -> DispatchedPerform<F, A> {
        let executor = executor(for: A.executor)
        let run = ActionRun(id: .next(), deadline: deadline, timer: configuration.deadlineTimer)
        let event = ActionDispatchEvent(
            requestID: run.id,
            sessionName: name,
            featureName: binding.featureName,
            actionName: binding.fullName,
            userInitiated: userInitiated,
            executorName: executor.name ?? "unnamed",
            date: Date(),
            analyticsID: A.analyticsID
        )

        // A strictly serial session holds its line from the action's start to its outcome.
        let line = A.executor.isSessionMain ? serialLine : nil
        let dispatched = DispatchedPerform(
            session: self, binding: binding, input: input, event: event, target: target, run: run,
            gate: line == nil ? nil : ExecutorGate(), asyncReport: asyncReport, completion: completion
        )

        if !observers.isEmpty { observers.notify { $0.actionWillBegin(event) } }
        // Each handler below captures the one object, so none allocates a context of its own.
        // The timer entry keeps the perform alive until the deadline or the outcome, so even an
        // action that drops its async handle (never completes) gets its timeout.
        run.armDeadline { [dispatched] in dispatched.timeOut() }
        cancellation?.onCancel { [dispatched] in dispatched.cancel() }
        if let line {
            line.submit { [dispatched] turn in dispatched.start(holding: turn) }
        } else {
            executor.submit { [dispatched] in dispatched.start() }
        }
        return dispatched
    }

    /// The session's logger with the action's name and request id: made only when something is
    /// logged, never per perform.
    @usableFromInline
    func logger(forAction actionName: String, requestID: ActionRequestID) -> Logger {
        var logger = self.logger
        logger[metadataKey: "action.name"] = "\(actionName)"
        logger[metadataKey: "action.request"] = "\(requestID)"
        return logger
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

extension Duration {
    /// The duration for Dispatch, in whole nanoseconds, never negative, at most a century
    /// (beyond that the nanosecond count would overflow).
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        guard seconds < 3_153_600_000 else { return .seconds(3_153_600_000) }
        return .nanoseconds(max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
    }
}
