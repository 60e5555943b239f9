import ActionCore
import Dispatch
import Foundation
import Testing

/// A worker's session queue runs the performs that arrive together in one block
/// (`SerialQueueExecutor`'s coalescing mode): what the executor promises must not change.
@Suite("Coalescing serial executor")
struct CoalescingExecutorTests {
    /// Holds `executor`'s queue with work that records "blocking" and waits (at most 30 s) for
    /// the returned semaphore: what is submitted meanwhile gathers into one run.
    private func block(_ executor: SerialQueueExecutor, recording steps: Recorder<String>) async -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0)
        executor.submit {
            steps.record("blocking")
            _ = release.wait(timeout: .now() + 30)
        }
        #expect(await steps.waitForValues(count: 1) == ["blocking"])
        return release
    }

    @Test("work submitted from another thread runs on the queue, in submission order")
    func runsInOrderOnItsQueue() async {
        let tagged = TaggedQueue("coalescing-order")
        let executor = SerialQueueExecutor(queue: tagged.queue, coalescing: true)
        let ran = Recorder<String>()
        for index in 0..<2_000 {
            executor.submit { ran.record("\(index) on \(TaggedQueue.currentTag ?? "nil")") }
        }
        let recorded = await ran.waitForValues(count: 2_000)
        #expect(recorded == (0..<2_000).map { "\($0) on coalescing-order" })
    }

    @Test("work that arrives while earlier work runs joins the same run, after it")
    func workArrivingMeanwhileRunsAfter() async {
        let executor = SerialQueueExecutor(queue: TaggedQueue("coalescing-meanwhile").queue, coalescing: true)
        let ran = Recorder<String>()
        let release = await block(executor, recording: ran)
        for name in ["a", "b", "c"] { executor.submit { ran.record(name) } }
        release.signal()
        #expect(await ran.waitForValues(count: 4) == ["blocking", "a", "b", "c"])
    }

    @Test("a nested submit on the queue runs inline, as without coalescing")
    func nestedSubmitRunsInline() async {
        let tagged = TaggedQueue("coalescing-nested")
        let executor = SerialQueueExecutor(queue: tagged.queue, coalescing: true)
        let steps = Recorder<String>()
        executor.submit {
            steps.record("outer")
            executor.submit { steps.record("nested") }
            steps.record("after nested")
        }
        executor.submit { steps.record("next") }
        #expect(await steps.waitForValues(count: 4) == ["outer", "nested", "after nested", "next"])
    }

    @Test("work holding the queue until its end keeps the rest of its run waiting")
    func workWaitingForItsEndHoldsTheRun() async {
        let executor = SerialQueueExecutor(queue: TaggedQueue("coalescing-end").queue, coalescing: true)
        let steps = Recorder<String>()
        let heldEnd = Recorder<@Sendable () -> Void>()
        let release = await block(executor, recording: steps)
        // Both go in one run once the queue is free: the second must wait for the first's end.
        executor.submit { end in
            steps.record("holding")
            heldEnd.record(end)
        }
        executor.submit { steps.record("after the end") }
        release.signal()
        guard let end = await heldEnd.waitForValues(count: 1)?.first else {
            Issue.record("the holding work never ran")
            return
        }
        steps.record("ended")
        end()
        #expect(await steps.waitForValues(count: 4) == ["blocking", "holding", "ended", "after the end"])
    }
}
