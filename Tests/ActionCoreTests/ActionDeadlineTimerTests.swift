import ActionCore
import Foundation
import Synchronization
import Testing

@Suite("Deadline timer")
struct ActionDeadlineTimerTests {
    /// Counts what fired, by name.
    final class Fired: Sendable {
        let names = Mutex<[String]>([])
        func record(_ name: String) { names.withLock { $0.append(name) } }
        var sorted: [String] { names.withLock { $0.sorted() } }
    }

    /// Waits (bounded) until the timer holds nothing more.
    func waitUntilIdle(_ timer: ActionDeadlineTimer) async throws {
        let limit = ContinuousClock.now + .seconds(10)
        while timer.scheduledCount > 0 {
            #expect(ContinuousClock.now < limit, "deadlines never fired")
            if ContinuousClock.now >= limit { return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func onlyDeadlinesNotCancelledFireAndEachOnce() async throws {
        let timer = ActionDeadlineTimer(label: "test.deadlines")
        let fired = Fired()
        let deadline = ContinuousClock.now + .milliseconds(30)
        // Many in one bucket: the bucket's slots grow, and cancelled slots stay empty.
        let tokens = (0..<300).map { n in timer.schedule(at: deadline) { fired.record("d\(n)") } }
        for (n, token) in tokens.enumerated() where n % 3 != 0 {
            timer.cancel(token)
            timer.cancel(token)
        }
        #expect(timer.scheduledCount == 100)
        try await waitUntilIdle(timer)
        // The handlers run on a global queue: wait for all hundred.
        let limit = ContinuousClock.now + .seconds(10)
        while fired.sorted.count < 100 && ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(5)) }
        #expect(fired.sorted == (0..<300).filter { $0 % 3 == 0 }.map { "d\($0)" }.sorted())
    }

    @Test func aStaleTokenDoesNotCancelALaterDeadlineInTheSameSlot() async throws {
        let timer = ActionDeadlineTimer(label: "test.deadlines.reuse")
        let fired = Fired()
        let deadline = ContinuousClock.now + .milliseconds(50)
        // The bucket empties (its storage goes to the spares), then fills again from slot 0.
        let first = timer.schedule(at: deadline) { fired.record("first") }
        timer.cancel(first)
        let second = timer.schedule(at: deadline) { fired.record("second") }
        timer.cancel(first)
        #expect(timer.scheduledCount == 1)
        try await waitUntilIdle(timer)
        let limit = ContinuousClock.now + .seconds(10)
        while fired.sorted.isEmpty && ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(5)) }
        #expect(fired.sorted == ["second"])
        timer.cancel(second)
        #expect(timer.scheduledCount == 0)
    }
}
