import ActionCore
import Dispatch

/// Actions that report where they ran, for the threading tests.
enum ProbeFeature: Feature {
    static let description = "Threading probes"

    static let onSerialQueue = action(SerialProbeAction.self)
    static let onSessionMain = action(SessionMainProbeAction.self)
    static let asyncOnSerialQueue = action(AsyncCompletingProbeAction.self)
    static let nested = action(NestedPerformAction.self)
    static let completesTwice = action(CompletesTwiceAction.self)
    static let completesLate = action(CompletesLateAction.self)
    static let asyncFunction = action(AsyncFunctionAction.self)
    static let terminate = action(DoneAction.self, name: "done")

    static func prepare(actions: inout FeatureActions) {
        actions.declare(onSerialQueue)
        actions.declare(onSessionMain)
        actions.declare(asyncOnSerialQueue)
        actions.declare(nested)
        actions.declare(completesTwice)
        actions.declare(completesLate)
        actions.declare(asyncFunction)
        actions.declare(terminate)
    }
}

/// Where an action ran.
struct Placement: Codable, Sendable, Equatable {
    var queueTag: String?
    var onSessionMain: Bool
}

/// Completes synchronously with the tag of the queue it ran on.
enum SerialProbeAction: Action {
    typealias Output = Placement
    static let description = "Reports its queue, synchronously"
    static let executor = ActionExecutorSelection.executor(TestQueues.serialExecutor)

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(Placement(queueTag: TaggedQueue.currentTag, onSessionMain: context.session.mainExecutor.isCurrent)))
    }
}

/// Runs on the session's main queue and says so.
enum SessionMainProbeAction: Action {
    typealias Output = Placement
    static let description = "Reports whether it runs on the session's main queue"

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(Placement(queueTag: TaggedQueue.currentTag, onSessionMain: context.session.mainExecutor.isCurrent)))
    }
}

/// Reports its queue, then completes later from another queue.
enum AsyncCompletingProbeAction: Action {
    typealias Output = Placement
    static let description = "Reports its queue, asynchronously"
    static let executor = ActionExecutorSelection.executor(TestQueues.serialExecutor)

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        let placement = Placement(queueTag: TaggedQueue.currentTag, onSessionMain: false)
        let pending = completion.willCompleteAsync()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) {
            pending.completed(.success(placement))
        }
        return pending
    }
}

/// Performs `SerialProbeAction` (same serial queue) from inside itself and reports whether the
/// nested completion arrived before the nested perform call returned.
enum NestedPerformAction: Action {
    struct Output: Codable, Sendable, Equatable {
        var nestedCompletedInline: Bool
        var nestedPlacement: Placement?
    }

    static let description = "Performs another action on the same serial queue"
    static let executor = ActionExecutorSelection.executor(TestQueues.serialExecutor)

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        let nested = Recorder<Placement>()
        context.session.perform(ProbeFeature.onSerialQueue) { outcome in
            if let placement = outcome.output { nested.record(placement) }
        }
        let output = Output(nestedCompletedInline: nested.count == 1, nestedPlacement: nested.first)
        return completion.completedSync(.success(output))
    }
}

/// Completes with "first" and then again with "second".
enum CompletesTwiceAction: Action {
    typealias Output = String
    static let description = "Completes twice"

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        let status = completion.completedSync(.success("first"))
        _ = completion.completedSync(.success("second"))
        return status
    }
}

/// Completes after `input` milliseconds, from a timer.
enum CompletesLateAction: Action {
    typealias Input = Int
    typealias Output = String
    static let description = "Completes after a delay"

    static func perform(context: ActionContext<Int>, completion: Completion) -> Completion.Status {
        let pending = completion.willCompleteAsync()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(context.input)) {
            pending.completed(.success("late"))
        }
        return pending
    }
}

/// An `AsyncAction`: "ok" returns, "actionError" throws an ActionError, anything else throws another error.
enum AsyncFunctionAction: AsyncAction {
    typealias Input = String
    typealias Output = String
    struct OtherError: Error {}

    static let description = "Written as an async function"

    static func perform(context: ActionContext<String>) async throws -> String {
        try await Task.sleep(for: .milliseconds(5))
        switch context.input {
        case "ok":
            return "done"
        case "actionError":
            throw ActionError(code: .invalidInput, message: "rejected")
        case "wait":
            try await Task.sleep(for: .seconds(60))
            return "waited"
        default:
            throw OtherError()
        }
    }
}

/// A terminating action.
enum DoneAction: TerminatingAction {}
