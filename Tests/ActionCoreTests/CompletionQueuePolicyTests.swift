import ActionCore
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
