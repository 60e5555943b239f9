import ActionCore
import Dispatch
import Foundation
import Testing

@Suite("Executors")
struct ExecutorTests {
    @Test("SerialQueueExecutor runs on its queue and inline when already on it")
    func serialQueueRunsInlineWhenCurrent() async {
        let tagged = TaggedQueue("serial-inline")
        let executor = SerialQueueExecutor(queue: tagged.queue)
        let steps = Recorder<String>()
        #expect(!executor.isCurrent)
        executor.submit {
            steps.record("outer on \(TaggedQueue.currentTag ?? "nil"), current \(executor.isCurrent)")
            executor.submit { steps.record("nested") }
            steps.record("after nested")
        }
        let recorded = await steps.waitForValues(count: 3)
        #expect(recorded == ["outer on serial-inline, current true", "nested", "after nested"])
    }

    @Test("DispatchQueueExecutor always submits asynchronously and knows its queue")
    func dispatchQueueExecutorIsAsynchronous() async {
        let tagged = TaggedQueue("dispatch", attributes: .concurrent)
        let executor = DispatchQueueExecutor(queue: tagged.queue)
        let steps = Recorder<String>()
        executor.submit {
            steps.record("outer current \(executor.isCurrent)")
            executor.submit { steps.record("nested on \(TaggedQueue.currentTag ?? "nil")") }
            steps.record("after nested")
        }
        let recorded = await steps.waitForValues(count: 3)
        #expect(recorded?.first == "outer current true")
        #expect(Set(recorded ?? []) == ["outer current true", "nested on dispatch", "after nested"])
        #expect(!executor.isCurrent)
    }

    @Test("OperationQueueExecutor runs operations on its queue and knows it")
    func operationQueueExecutor() async {
        let executor = OperationQueueExecutor(name: "test.operations", maxConcurrentOperationCount: 1)
        let seen = Recorder<Bool>()
        #expect(!executor.isCurrent)
        executor.submit { seen.record(executor.isCurrent) }
        #expect(await seen.waitForValues(count: 1) == [true])
    }

    @Test("DirectExecutor runs on the caller's thread, synchronously")
    func directExecutor() {
        let executor = DirectExecutor()
        let ran = Recorder<String?>()
        TestQueues.completion.queue.sync {
            executor.submit { ran.record(TaggedQueue.currentTag) }
        }
        #expect(ran.values == ["completion"])
        #expect(executor.isCurrent)
    }
}
