import ActionBusTestSupport
@testable import ActionCoordinator
import ActionWire
import Testing

/// The kept outcomes: recent ones are evicted oldest first past the bounds, owed ones (which
/// the request table holds) share the byte budget, and every lookup finds what a plain model
/// of the rules says is kept.
@Suite("Coordinator core: kept outcomes")
struct CompletedOutcomesTests {
    private func outcome(_ id: String, output: String = "{}") -> WireOutcome {
        WireOutcome(requestID: id, action: "Echo.say", session: "", worker: "w1", closeActionStack: false,
                    result: .success(contentType: WireRequest.json, output: Array(output.utf8)))
    }

    @Test func recentOutcomesAreEvictedOldestFirstAndOwedOnesShareTheByteBudget() {
        let size = CompletedOutcomes.size(of: outcome("recent-1"))
        var kept = CompletedOutcomes(capacity: 2, byteCapacity: 3 * size)
        for n in 1...3 { kept.record(outcome("recent-\(n)")) }
        #expect(kept.lookup("recent-1") == nil)
        #expect(kept.lookup("recent-2") != nil && kept.lookup("recent-3") != nil)
        // Owed outcomes fill the budget up to its end, recent ones or not; then a recent one
        // is kept only as the newest, alone.
        for _ in 1...3 {
            #expect(kept.mayOwe(size))
            kept.owe(size)
        }
        #expect(!kept.mayOwe(size))
        kept.record(outcome("recent-4"))
        #expect(kept.count == 1 && kept.lookup("recent-4") != nil)
        #expect(kept.owedCount == 3 && kept.owedBytes == 3 * size)
        kept.settle(size)
        #expect(kept.owedCount == 2 && kept.mayOwe(size))
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
        #expect(kept.oldestFirst.map(\.requestID) == ["a", "c"])
    }

    @Test func withNoRetentionNothingIsKeptAndAnEarlierOutcomeForTheIDIsForgotten() {
        var kept = CompletedOutcomes(capacity: 0)
        kept.record(outcome("a"))
        #expect(kept.lookup("a") == nil && kept.count == 0 && kept.bytes == 0)
    }

    @Test(.seeded) func whatIsKeptMatchesAModelOfTheRules() {
        let capacity = 50
        var kept = CompletedOutcomes(capacity: capacity)
        var recent: [String] = []
        var generator = SeededRandom()
        for step in 0..<5_000 {
            let id = "id-\(Int.random(in: 0..<400, using: &generator))"
            if step % 2 == 0 {
                kept.record(outcome(id), idTag: step % 3 == 0 ? RequestTable.tag(of: id) : nil)
                recent.removeAll { $0 == id }
                recent.append(id)
                if recent.count > capacity { recent.removeFirst(recent.count - capacity) }
            } else {
                #expect((kept.lookup(id) != nil) == recent.contains(id), "\(id) at step \(step)")
            }
        }
        #expect(kept.count == recent.count)
        #expect(kept.oldestFirst.map(\.requestID) == recent)
    }
}
