@testable import ActionCore
import Dispatch
import ExampleFeatures
import Foundation
import Testing

/// The one completion-queue rule (``CallerQueue``) for sessions: the queue passed, else the
/// operation queue the caller runs in, else the action's executor.
@Suite("Completion queues: one rule")
struct CompletionQueuePolicyTests {
    let session = ActionSession(name: "completion-\(UUID().uuidString)")

    private func completionPlace(
        _ completionQueue: DispatchQueue?, _ where: @escaping @Sendable () -> String
    ) async -> String? {
        let seen = Recorder<String>()
        session.perform(EchoFeature.say, input: .init(text: "x"), completionQueue: completionQueue) { _ in seen.record(`where`()) }
        return await seen.waitForValues(count: 1)?.first
    }

    @Test func theMainQueueWhenPassed() async {
        #expect(await completionPlace(.main) { "main \(DispatchQueue.main.isCurrent)" } == "main true")
    }

    @Test func aPrivateSerialQueueWhenPassed() async {
        #expect(await completionPlace(TestQueues.completion.queue) { TaggedQueue.currentTag ?? "nil" } == "completion")
    }

    @Test func aGlobalQueueWhenPassed() async {
        let global = DispatchQueue.global(qos: .utility)
        #expect(await completionPlace(global) { "global \(global.isCurrent)" } == "global true")
    }

    @Test func theCallersOperationQueueByDefault() async {
        let callers = OperationQueue()
        callers.name = "callers-operations"
        callers.maxConcurrentOperationCount = 1
        let seen = Recorder<String>()
        let session = self.session
        callers.addOperation {
            session.perform(EchoFeature.say, input: .init(text: "x")) { _ in
                seen.record(OperationQueue.current?.name ?? "no operation queue")
            }
        }
        #expect(await seen.waitForValues(count: 1) == ["callers-operations"])
    }

    @Test func theActionsExecutorWhenTheCallerIsOnNoOperationQueue() async {
        let session = self.session
        #expect(await completionPlace(nil) { "session main \(session.mainExecutor.isCurrent)" } == "session main true")
    }
}

/// Rule 2's decision for the main queue, which on Linux `OperationQueue.current` names on any
/// code of the main thread: the test process's main thread cannot be made to block outside its
/// run loop from a test, so the decision is checked on its inputs.
@Suite("Completion queues: the main thread")
struct CallerMainQueueChoiceTests {
    @Test func theMainThreadOutsideItsRunLoopDoesNotGetTheMainQueue() {
        #expect(CallerQueue.choice(current: .main, isMainThread: true, mainRunLoopIsRunning: false) == nil)
    }

    @Test func theMainThreadInsideItsRunLoopGetsTheMainQueue() {
        #expect(CallerQueue.choice(current: .main, isMainThread: true, mainRunLoopIsRunning: true) === OperationQueue.main)
    }

    @Test func aMainQueueOperationOffTheMainThreadGetsTheMainQueue() {
        #expect(CallerQueue.choice(current: .main, isMainThread: false, mainRunLoopIsRunning: false) === OperationQueue.main)
    }

    @Test func otherOperationQueuesAreKeptAnywhere() {
        let queue = OperationQueue()
        #expect(CallerQueue.choice(current: queue, isMainThread: true, mainRunLoopIsRunning: false) === queue)
        #expect(CallerQueue.choice(current: nil, isMainThread: true, mainRunLoopIsRunning: true) == nil)
    }

    @Test func aMainQueueBlockIsAnsweredOnTheMainQueue() async {
        // However this process services its main queue (a run loop on the main thread, or
        // dispatchMain's threads), code in a main-queue block that performs by default hears back
        // on the main queue or, where no operation queue is current, the action's executor:
        // never a thread that cannot run.
        let session = ActionSession(name: "main-caller-\(UUID().uuidString)")
        let seen = Recorder<String>()
        DispatchQueue.main.async {
            let expectMain = CallerQueue.current === OperationQueue.main
            session.perform(EchoFeature.say, input: .init(text: "x")) { _ in
                seen.record(expectMain ? "main \(DispatchQueue.main.isCurrent)" : "session \(session.mainExecutor.isCurrent)")
            }
        }
        let place = await seen.waitForValues(count: 1)?.first
        #expect(place == "main true" || place == "session true")
    }
}
