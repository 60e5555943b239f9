import ActionBusTestSupport
@testable import ActionCoordinator
import ActionWire
import Testing

/// The registry alone: its credit pool follows every change of a worker, and its choice is the
/// least-loaded worker serving the action.
@Suite("Coordinator parts: worker registry")
struct WorkerRegistryTests {
    typealias F = PartsFixtures

    @Test func thePoolCountsOnlyWorkersThatTakeWork() {
        let registry = WorkerRegistry()
        let a = F.worker("a", credits: 3), b = F.worker("b", credits: 2)
        registry.register(a)
        registry.register(b)
        #expect(registry.freeCredits == 5)
        #expect(registry.markUnreachable(a.id) === a)
        #expect(registry.markUnreachable(a.id) == nil, "already unreachable: nothing moves twice")
        #expect(registry.freeCredits == 2)
        #expect(registry.heardFrom(a.id, now: F.origin)?.returning == true)
        #expect(registry.freeCredits == 5)
        #expect(registry.startDraining(b))
        #expect(!registry.startDraining(b))
        #expect(registry.freeCredits == 3)
        #expect(registry.remove(a.id) === a)
        #expect(registry.freeCredits == 0 && registry.count == 1)
    }

    @Test func aCreditTakenComesBackOnlyToAWorkerThatTakesWork() {
        let registry = WorkerRegistry()
        let worker = F.worker("w", credits: 2)
        registry.register(worker)
        let first = F.request("r1"), second = F.request("r2")
        registry.take(first, on: worker)
        registry.take(second, on: worker)
        #expect(registry.freeCredits == 0)
        #expect(registry.release("r1", from: worker) === first)
        #expect(registry.release("r1", from: worker) == nil, "released once")
        #expect(registry.freeCredits == 1)
        _ = registry.startDraining(worker)
        #expect(registry.release(second, from: worker))
        #expect(registry.freeCredits == 0, "a draining worker's credit leaves the pool")
    }

    @Test func registeringAgainKeepsWhatTheWorkerRunsAndItsCreditsStayCounted() {
        let registry = WorkerRegistry()
        let first = F.worker("w", credits: 2)
        registry.register(first)
        registry.take(F.request("r1"), on: first)
        let again = F.worker("w", credits: 4)
        registry.register(again)
        #expect(registry.count == 1)
        #expect(again.inFlight.count == 1)
        #expect(registry.freeCredits == 3)
        #expect(registry.creditAccount.pool == registry.creditAccount.workers)
    }

    /// Found by the seeded test below: a worker registering again with fewer credits than it
    /// runs counted negative free credits, which held the whole pool at zero (no dispatch to any
    /// other worker) until its requests finished.
    @Test func aWorkerOverItsCreditsHoldsNoneAndTakesNoneFromOthers() {
        let registry = WorkerRegistry()
        let shrinking = F.worker("shrinking", credits: 3), other = F.worker("other", credits: 2)
        registry.register(shrinking)
        registry.register(other)
        let running = (0..<3).map { F.request("r\($0)") }
        for request in running { registry.take(request, on: shrinking) }
        let again = F.worker("shrinking", credits: 1)
        registry.register(again)
        #expect(again.freeCredits == 0)
        #expect(registry.freeCredits == 2, "the other worker's room is still there")
        #expect(registry.release(running[0], from: again))
        #expect(registry.freeCredits == 2, "still over its credits")
        #expect(registry.release(running[1], from: again) && registry.release(running[2], from: again))
        #expect(registry.freeCredits == 3)
    }

    @Test func theChoiceIsTheLeastLoadedThenTheRoomiestAndSkipsAHolderOfTheSameID() {
        let registry = WorkerRegistry()
        let busy = F.worker("busy", credits: 4), idle = F.worker("idle", credits: 1), roomy = F.worker("roomy", credits: 3)
        let other = F.worker("other", credits: 9, actions: ["Other.do"])
        for worker in [busy, idle, roomy, other] { registry.register(worker) }
        registry.take(F.request("x"), on: busy)
        #expect(registry.leastLoadedWorker(for: "Echo.say", excluding: nil) === roomy)
        let held = F.request("held")
        registry.take(held, on: roomy)
        #expect(registry.leastLoadedWorker(for: "Echo.say", excluding: nil) === idle)
        let resend = F.request("held")
        #expect(registry.leastLoadedWorker(for: "Echo.say", excluding: resend) === idle)
        registry.take(F.request("y"), on: idle)
        #expect(registry.leastLoadedWorker(for: "Echo.say", excluding: resend) === busy)
        #expect(registry.leastLoadedWorker(for: "Missing.action", excluding: nil) == nil)
        #expect(registry.isServed("Other.do") && !registry.isServed("Missing.action"))
        _ = registry.startDraining(other)
        #expect(!registry.isServed("Other.do"), "a draining worker serves nothing new")
        #expect(registry.servedActions == ["Echo.say"])
    }

    @Test func aSessionPinMovesAndLeavesWithItsHost() {
        let registry = WorkerRegistry()
        let a = F.worker("a"), b = F.worker("b")
        registry.register(a)
        registry.register(b)
        registry.pin("s", to: a, now: F.origin)
        registry.pin("s", to: b, now: F.origin)
        #expect(registry.sessions["s"]?.worker == b.id)
        #expect(a.sessions.isEmpty && b.sessions == ["s"])
        let running = F.request("r", session: "s")
        registry.take(running, on: b)
        #expect(registry.runs("s", on: b) && !registry.runs("s", on: a))
        _ = registry.remove(b.id)
        #expect(registry.sessions["s"] == nil)
        registry.pin("t", to: a, now: F.origin)
        registry.unpin("t")
        #expect(registry.sessions.isEmpty && a.sessions.isEmpty)
    }

    /// Random registrations, sends, answers, departures and state changes: after each, the pool
    /// equals the sum of the free credits of the workers that take work, and is never negative.
    @Test(.seeded) func theCreditAccountBalancesAfterAnyChange() {
        var random = SeededRandom()
        let registry = WorkerRegistry()
        var next = 0
        for step in 0..<5_000 {
            let names = ["a", "b", "c", "d"]
            let name = names.randomElement(using: &random)!
            let id = WorkerID(Array(name.utf8))
            switch Int.random(in: 0..<8, using: &random) {
            case 0:
                registry.register(F.worker(name, credits: UInt32.random(in: 1...4, using: &random)))
            case 1:
                _ = registry.remove(id)
            case 2:
                _ = registry.markUnreachable(id)
            case 3:
                _ = registry.heardFrom(id, now: F.origin)
            case 4:
                if let worker = registry[id] { _ = registry.startDraining(worker) }
            case 5, 6:
                if let worker = registry.leastLoadedWorker(for: "Echo.say", excluding: nil) {
                    next += 1
                    registry.take(F.request("r\(next)"), on: worker)
                }
            default:
                if let worker = registry[id], let held = worker.inFlight.requests.randomElement(using: &random) {
                    #expect(registry.release(held, from: worker))
                }
            }
            let account = registry.creditAccount
            guard account.pool == account.workers, account.pool >= 0 else {
                Issue.record("step \(step): the pool says \(account.pool), the workers \(account.workers)")
                return
            }
        }
    }
}
