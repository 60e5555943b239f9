import ActionCore
import Dispatch
import Foundation
import Testing

@Suite("ActionSession threading")
struct ActionSessionThreadingTests {
    let session = ActionSession(name: "threading")

    /// Performs the serial-queue probe that completes synchronously, or the one that completes later.
    private func performProbe(
        asyncCompletion: Bool,
        completionQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (ActionOutcome<Placement>) -> Void
    ) {
        if asyncCompletion {
            session.perform(ProbeFeature.asyncOnSerialQueue, completionQueue: completionQueue, completion: completion)
        } else {
            session.perform(ProbeFeature.onSerialQueue, completionQueue: completionQueue, completion: completion)
        }
    }

    @Test("The action runs on the executor it declares")
    func actionRunsOnDeclaredExecutor() async {
        let outcomes = Recorder<ActionOutcome<Placement>>()
        session.perform(ProbeFeature.onSerialQueue) { outcomes.record($0) }
        let placement = await outcomes.waitForValues()?.first?.output
        #expect(placement == Placement(queueTag: "action-serial", onSessionMain: false))
    }

    @Test("An action declaring the session's main queue runs on it")
    func actionRunsOnSessionMain() async {
        let outcomes = Recorder<ActionOutcome<Placement>>()
        session.perform(ProbeFeature.onSessionMain) { outcomes.record($0) }
        let placement = await outcomes.waitForValues()?.first?.output
        #expect(placement == Placement(queueTag: nil, onSessionMain: true))
    }

    @Test("Completion runs on the caller's chosen queue", arguments: [false, true])
    func completionOnChosenQueue(asyncCompletion: Bool) async {
        let queues = Recorder<String?>()
        performProbe(asyncCompletion: asyncCompletion, completionQueue: TestQueues.completion.queue) { _ in
            queues.record(TaggedQueue.currentTag)
        }
        #expect(await queues.waitForValues() == ["completion"])
    }

    @Test("Without a completion queue, completion runs on the action's queue", arguments: [false, true])
    func completionOnActionQueueByDefault(asyncCompletion: Bool) async {
        let queues = Recorder<String?>()
        performProbe(asyncCompletion: asyncCompletion) { _ in queues.record(TaggedQueue.currentTag) }
        #expect(await queues.waitForValues() == ["action-serial"])
    }

    @Test("Synchronous and asynchronous completion look the same to the caller")
    func syncAndAsyncCompletionAreIndistinguishable() async {
        let results = Recorder<String>()
        for asyncCompletion in [false, true] {
            performProbe(asyncCompletion: asyncCompletion) { outcome in
                results.record("\(outcome.output?.queueTag ?? "nil") on \(TaggedQueue.currentTag ?? "nil")")
            }
        }
        let recorded = await results.waitForValues(count: 2)
        #expect(recorded == ["action-serial on action-serial", "action-serial on action-serial"])
    }

    @Test("Performing on the queue the completion goes to makes no extra hop")
    func noExtraHopWhenAlreadyOnCompletionQueue() {
        let delivered = Recorder<String>()
        TestQueues.actionSerial.queue.sync {
            session.perform(ProbeFeature.onSerialQueue) { _ in delivered.record("completion") }
            delivered.record("perform returned")
        }
        #expect(delivered.values == ["completion", "perform returned"])
    }

    @Test("A nested perform on the same serial queue runs inline instead of deadlocking")
    func nestedPerformOnSameSerialQueue() async {
        let outcomes = Recorder<ActionOutcome<NestedPerformAction.Output>>()
        session.perform(ProbeFeature.nested, deadline: .now + .seconds(60)) { outcomes.record($0) }
        let output = await outcomes.waitForValues()?.first?.output
        #expect(output?.nestedCompletedInline == true)
        #expect(output?.nestedPlacement?.queueTag == "action-serial")
    }

    @Test("Performing from many threads at once delivers every outcome exactly once")
    func performFromManyThreads() async {
        let outcomes = Recorder<String?>()
        DispatchQueue.concurrentPerform(iterations: 50) { _ in
            session.perform(ProbeFeature.onSessionMain, completionQueue: TestQueues.completion.queue) { _ in
                outcomes.record(TaggedQueue.currentTag)
            }
        }
        let recorded = await outcomes.waitForValues(count: 50)
        #expect(recorded?.count == 50)
        #expect(recorded?.allSatisfy { $0 == "completion" } == true)
    }
}
