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

    @Test("work submitted while scheduling is held waits for the release, then runs in order")
    func heldWorkWaitsForTheRelease() async {
        let tagged = TaggedQueue("coalescing-held")
        let executor = SerialQueueExecutor(queue: tagged.queue, coalescing: true)
        let ran = Recorder<String>()
        executor.holdScheduling()
        for name in ["a", "b", "c"] { executor.submit { ran.record("\(name) on \(TaggedQueue.currentTag ?? "nil")") } }
        // Every block put on the queue before this one has run: none ran the held work.
        tagged.queue.sync {}
        #expect(ran.values.isEmpty)
        executor.releaseScheduling()
        #expect(await ran.waitForValues(count: 3) == ["a on coalescing-held", "b on coalescing-held", "c on coalescing-held"])
    }

    @Test("holds nest: only the last release schedules the held work")
    func holdsNest() async {
        let tagged = TaggedQueue("coalescing-nested-holds")
        let executor = SerialQueueExecutor(queue: tagged.queue, coalescing: true)
        let ran = Recorder<String>()
        executor.holdScheduling()
        executor.holdScheduling()
        executor.submit { ran.record("held") }
        executor.releaseScheduling()
        tagged.queue.sync {}
        #expect(ran.values.isEmpty)
        executor.releaseScheduling()
        #expect(await ran.waitForValues(count: 1) == ["held"])
    }

    @Test("a run under way still takes work submitted during a hold")
    func runUnderWayTakesHeldWork() async {
        let executor = SerialQueueExecutor(queue: TaggedQueue("coalescing-hold-running").queue, coalescing: true)
        let ran = Recorder<String>()
        let release = await block(executor, recording: ran)
        executor.holdScheduling()
        executor.submit { ran.record("joined") }
        release.signal()
        // No release of the hold: the run that was under way takes it.
        #expect(await ran.waitForValues(count: 2) == ["blocking", "joined"])
        executor.releaseScheduling()
    }

    @Test("an executor that does not coalesce ignores holds")
    func holdsWithoutCoalescing() async {
        let executor = SerialQueueExecutor(queue: TaggedQueue("not-coalescing-hold").queue)
        let ran = Recorder<String>()
        executor.holdScheduling()
        executor.submit { ran.record("ran") }
        #expect(await ran.waitForValues(count: 1) == ["ran"])
        executor.releaseScheduling()
    }
}
