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
        // Each piece of work waits (bounded) for its `submit` to have returned: an executor that
        // ran work inline, inside `submit`, would make that wait run out.
        let outerSubmitted = DispatchSemaphore(value: 0)
        let nestedSubmitted = DispatchSemaphore(value: 0)
        executor.submit {
            let returnedFirst = outerSubmitted.wait(timeout: .now() + 2) == .success
            steps.record("outer: submit returned first \(returnedFirst), on \(TaggedQueue.currentTag ?? "nil"), current \(executor.isCurrent)")
            executor.submit {
                let returnedFirst = nestedSubmitted.wait(timeout: .now() + 2) == .success
                steps.record("nested: submit returned first \(returnedFirst), on \(TaggedQueue.currentTag ?? "nil")")
            }
            nestedSubmitted.signal()
            steps.record("outer: after nested submit")
        }
        outerSubmitted.signal()
        let recorded = await steps.waitForValues(count: 3) ?? []
        #expect(recorded.first == "outer: submit returned first true, on dispatch, current true", "\(recorded)")
        // The nested work runs concurrently with the rest of the outer work: in either order.
        #expect(Set(recorded.dropFirst()) == ["nested: submit returned first true, on dispatch", "outer: after nested submit"], "\(recorded)")
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
