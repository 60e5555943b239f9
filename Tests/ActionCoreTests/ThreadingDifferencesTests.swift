import ActionCore
import Dispatch
import Foundation
import Testing

/// Which of the test's queues code runs on, read without asking ActionCore.
private let placeKey = DispatchSpecificKey<String>()

private func makeQueue(_ name: String, target: DispatchQueue? = nil) -> DispatchQueue {
    let queue = DispatchQueue(label: "threading-differences.\(name)", target: target)
    queue.setSpecific(key: placeKey, value: name)
    return queue
}

/// The executor the probe declares: a serial queue whose own target is another serial queue.
private let executorsTarget = makeQueue("executors-target")
private let declaredQueue = makeQueue("declared", target: executorsTarget)
private let declaredExecutor = SerialQueueExecutor(queue: declaredQueue)

/// A value set and read from several threads.
private final class Box<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Reports the test queue it ran on (`nil` for none of them).
private enum WhereAction: Action {
    struct Output: Codable, Sendable, Equatable { var place: String? }
    static let description = "Reports the queue it runs on"
    static let executor = ActionExecutorSelection.executor(declaredExecutor)

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(Output(place: DispatchQueue.getSpecific(key: placeKey))))
    }
}

/// The same, on the session's main queue.
private enum WhereOnSessionMainAction: Action {
    typealias Output = WhereAction.Output
    static let description = "Reports the queue it runs on"

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(Output(place: DispatchQueue.getSpecific(key: placeKey))))
    }
}

/// Promises to complete later and drops the promise.
private enum DropsItsCompletionAction: Action {
    static let description = "Never completes"

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.willCompleteAsync()
    }
}

private enum DifferencesFeature: Feature {
    static let description = "Where ActionBus's threading differs from Flint's"
    static let whereabouts = action(WhereAction.self, name: "where")
    static let whereOnSessionMain = action(WhereOnSessionMainAction.self, name: "whereOnSessionMain")
    static let drops = action(DropsItsCompletionAction.self, name: "drops")

    static func prepare(actions: inout FeatureActions) {
        actions.declare(whereabouts)
        actions.declare(whereOnSessionMain)
        actions.declare(drops)
    }
}

/// The rows of docs/FLINT.md's *Threading* table marked ≠: target queues, a dropped
/// completion without a deadline, and the worker's half of "each action on its declared
/// executor" (a worker performs by name in a hosted session, as here).
@Suite("Threading: where ActionBus differs from Flint")
struct ThreadingDifferencesTests {
    @Test func aQueueThatTargetsAnExecutorsQueueCountsAsOnItAndRunsTheActionInline() {
        let targeting = makeQueue("targeting-declared", target: declaredQueue)
        let session = ActionSession(name: "targets")
        let placeSeenInline = targeting.sync { () -> String?? in
            #expect(declaredExecutor.isCurrent)
            let seen = Box<String??>(nil)
            session.perform(DifferencesFeature.whereabouts) { outcome in seen.value = .some(outcome.output?.place) }
            return seen.value
        }
        // Inline, on the calling queue, which is the executor's by its target.
        #expect(placeSeenInline == .some("targeting-declared"))
    }

    @Test func theExecutorsOwnTargetIsNotItsQueueAndGetsAHopNotADeadlock() async {
        // Flint would `sync` onto the declared queue from its target and wait for ever.
        let seen = Box<String??>(nil)
        let session = ActionSession(name: "target-of-executor")
        let ranInline = executorsTarget.sync { () -> Bool in
            #expect(!declaredExecutor.isCurrent)
            session.perform(DifferencesFeature.whereabouts, completionQueue: .global()) { outcome in seen.value = .some(outcome.output?.place) }
            return seen.value != nil
        }
        #expect(!ranInline)
        #expect(await becomesTrue { seen.value != nil })
        #expect(seen.value == .some("declared"))
    }

    @Test func aDroppedCompletionWithoutADeadlineDeliversNothingAndWithOneTimesOut() async throws {
        // Sessions have no default deadline, as in Flint: at most once.
        let session = ActionSession(name: "drops")
        #expect(session.configuration.defaultTimeout == nil)
        let delivered = Box(0)
        session.perform(DifferencesFeature.drops) { _ in delivered.value += 1 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(delivered.value == 0)
        // With a deadline, exactly once: `timedOut`.
        do {
            _ = try await session.perform(DifferencesFeature.drops, deadline: .now + .milliseconds(50))
            Issue.record("a dropped completion succeeded")
        } catch {
            #expect(error.code == .timedOut)
        }
    }

    @Test func theWorkersPathRunsEachActionOnItsDeclaredExecutor() async {
        let sessionQueue = makeQueue("worker-session")
        let session = ActionSession(
            name: "worker", catalog: ActionCatalog(features: [DifferencesFeature.self]), userInitiated: true,
            configuration: ActionSessionConfiguration(), mainQueue: sessionQueue, unrequestedPerformReporter: nil
        )
        func place(of action: String) async -> String? {
            let outcome = await withCheckedContinuation { continuation in
                session.performForwarding(named: action, jsonInput: []) { continuation.resume(returning: $0) }
            }
            guard let bytes = outcome.output else { return "failed: \(String(describing: outcome.error))" }
            return try? JSONDecoder().decode(WhereAction.Output.self, from: Data(bytes)).place
        }
        #expect(await place(of: "DifferencesFeature.where") == "declared")
        #expect(await place(of: "DifferencesFeature.whereOnSessionMain") == "worker-session")
    }
}

/// Waits, without blocking a thread, until `condition` holds or ten seconds pass.
private func becomesTrue(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
