import ActionCore
import Foundation
import Testing

@Suite("Deadline timer")
struct ActionDeadlineTimerTests {
    /// Waits (bounded) until the timer holds nothing more.
    func waitUntilIdle(_ timer: ActionDeadlineTimer) async {
        let idle = await waitUntil(timeout: .seconds(10)) { timer.scheduledCount == 0 }
        #expect(idle, "deadlines never fired")
    }

    @Test func onlyDeadlinesNotCancelledFireAndEachOnce() async throws {
        let timer = ActionDeadlineTimer(label: "test.deadlines")
        let fired = Recorder<String>()
        let deadline = ContinuousClock.now + .milliseconds(30)
        // Many in one bucket: the bucket's slots grow, and cancelled slots stay empty.
        let tokens = (0..<300).map { n in timer.schedule(at: deadline) { fired.record("d\(n)") } }
        for (n, token) in tokens.enumerated() where n % 3 != 0 {
            timer.cancel(token)
            timer.cancel(token)
        }
        #expect(timer.scheduledCount == 100)
        await waitUntilIdle(timer)
        // The handlers run on a global queue: wait for all hundred.
        let names = try #require(await fired.waitForValues(count: 100, timeout: .seconds(10)))
        #expect(names.sorted() == (0..<300).filter { $0 % 3 == 0 }.map { "d\($0)" }.sorted())
    }

    @Test func aStaleTokenDoesNotCancelALaterDeadlineInTheSameSlot() async throws {
        let timer = ActionDeadlineTimer(label: "test.deadlines.reuse")
        let fired = Recorder<String>()
        let deadline = ContinuousClock.now + .milliseconds(50)
        // The bucket empties (its storage goes to the spares), then fills again from slot 0.
        let first = timer.schedule(at: deadline) { fired.record("first") }
        timer.cancel(first)
        let second = timer.schedule(at: deadline) { fired.record("second") }
        timer.cancel(first)
        #expect(timer.scheduledCount == 1)
        await waitUntilIdle(timer)
        #expect(try #require(await fired.waitForValues(count: 1, timeout: .seconds(10))) == ["second"])
        timer.cancel(second)
        #expect(timer.scheduledCount == 0)
    }

    /// The source's handler holds the timer's engine strongly (so that nothing holds the timer
    /// weakly); the timer's deinit cancels the source, which must let go of the engine and of
    /// every deadline's closure still in it.
    @Test func aDroppedTimerLetsGoOfItsPendingDeadlines() async {
        final class Payload: Sendable {}
        weak var payload: Payload?
        do {
            let timer = ActionDeadlineTimer(label: "test.deadlines.dropped")
            let held = Payload()
            payload = held
            _ = timer.schedule(at: .now + .seconds(3_600)) { _ = held }
        }
        let released = await waitUntil(timeout: .seconds(10)) { payload == nil }
        #expect(released, "a dropped timer kept its pending deadline's closure")
    }
}
