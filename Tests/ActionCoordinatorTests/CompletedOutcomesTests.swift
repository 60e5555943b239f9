@testable import ActionCoordinator
import ActionWire
import Testing

/// The kept outcomes: owed ones stay until acknowledged, recent ones are evicted oldest first
/// past the bounds, and every lookup finds what a plain model of the rules says is kept.
@Suite("Coordinator core: kept outcomes")
struct CompletedOutcomesTests {
    private func outcome(_ id: String, output: String = "{}") -> WireOutcome {
        WireOutcome(requestID: id, action: "Echo.say", session: "", worker: "w1", closeActionStack: false,
                    result: .success(contentType: WireRequest.json, output: Array(output.utf8)))
    }

    private let owed = ClockOffset.of(.now + .seconds(3_600))

    @Test func anOwedOutcomeStaysPastTheBoundsUntilAcknowledgedThenIsEvictedOldestFirst() {
        var kept = CompletedOutcomes(capacity: 2)
        kept.record(outcome("owed"), owedUntilOffset: owed)
        for n in 1...3 { kept.record(outcome("recent-\(n)")) }
        // Two recent ones fit: the oldest went; the owed one is not counted against them.
        #expect(kept.lookup("recent-1") == nil)
        #expect(kept.lookup("recent-2") != nil && kept.lookup("recent-3") != nil)
        #expect(kept.lookup("owed")?.outcome.requestID == "owed")
        #expect(kept.owedCount == 1)
        kept.acknowledge("owed")
        #expect(kept.owedCount == 0)
        // Now recent, and the newest: the oldest recent one makes room for it.
        #expect(kept.lookup("owed") != nil)
        #expect(kept.lookup("recent-2") == nil)
        #expect(kept.count == 2)
    }

    @Test func aSecondOutcomeForAnIDReplacesTheFirstAndItsStalePlaceIsSkipped() {
        var kept = CompletedOutcomes(capacity: 2)
        kept.record(outcome("a", output: #"{"n":1}"#))
        kept.record(outcome("b"))
        kept.record(outcome("a", output: #"{"n":2}"#))
        #expect(kept.count == 2)
        #expect(kept.lookup("a")?.outcome.result == .success(contentType: WireRequest.json, output: Array(#"{"n":2}"#.utf8)))
        // "b" is now the oldest recent one: a third id evicts it, not the replaced "a".
        kept.record(outcome("c"))
        #expect(kept.lookup("b") == nil)
        #expect(kept.lookup("a") != nil && kept.lookup("c") != nil)
    }

    @Test func acknowledgingWithoutKeepingForgetsAndExpiryMakesOwedOnesRecent() {
        var kept = CompletedOutcomes(capacity: 10)
        kept.record(outcome("gone"), owedUntilOffset: owed)
        kept.acknowledge("gone", keep: false)
        #expect(kept.lookup("gone") == nil)
        #expect(kept.count == 0)
        kept.record(outcome("late"), owedUntilOffset: ClockOffset.of(.now - .seconds(1)))
        #expect(kept.owedCount == 1)
        kept.expireOwed(now: .now)
        #expect(kept.owedCount == 0)
        #expect(kept.lookup("late") != nil)
    }

    @Test func whatIsKeptMatchesAModelOfTheRules() {
        let capacity = 50
        var kept = CompletedOutcomes(capacity: capacity)
        var owedIDs: Set<String> = []
        var recent: [String] = []
        var generator = SystemRandomNumberGenerator()
        for step in 0..<5_000 {
            let id = "id-\(Int.random(in: 0..<400, using: &generator))"
            switch step % 4 {
            case 0, 1:
                let isOwed = step % 8 == 0
                kept.record(outcome(id), idTag: step % 3 == 0 ? RequestTable.tag(of: id) : nil, owedUntilOffset: isOwed ? owed : nil)
                owedIDs.remove(id)
                recent.removeAll { $0 == id }
                if isOwed { owedIDs.insert(id) } else { recent.append(id) }
            case 2:
                kept.acknowledge(id)
                if owedIDs.remove(id) != nil { recent.append(id) }
            default:
                #expect((kept.lookup(id) != nil) == (owedIDs.contains(id) || recent.contains(id)), "\(id) at step \(step)")
            }
            if recent.count > capacity { recent.removeFirst(recent.count - capacity) }
        }
        #expect(kept.count == owedIDs.count + recent.count)
        #expect(kept.owedCount == owedIDs.count)
        #expect(Set(kept.oldestFirst.map(\.requestID)) == owedIDs.union(recent))
    }
}
