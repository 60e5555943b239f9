@testable import ActionCoordinator
import ActionWire
import Testing

/// The keeper alone: an outcome is owed until acknowledged or its client stops waiting, recent
/// after, and only recent when the owed ones fill their budget; a Majordomo outcome is not kept.
@Suite("Coordinator parts: outcome keeper")
struct OutcomeKeeperTests {
    typealias F = PartsFixtures

    func outcome(_ id: String) -> WireOutcome {
        WireOutcome(requestID: id, action: "Echo.say", session: "", worker: "w", closeActionStack: false,
                    result: .success(contentType: WireRequest.json, output: Array("1".utf8)))
    }

    func keeper(bytes: Int = 1 << 20) -> OutcomeKeeper {
        OutcomeKeeper(capacity: 100, byteCapacity: bytes, owedOutcomeGrace: .seconds(5), origin: F.origin)
    }

    @Test func anOwedOutcomeIsFoundThroughItsRequestAndSettledIntoRecent() {
        let keeper = keeper()
        let pending = F.request("r")
        #expect(keeper.keep(outcome("r"), of: pending))
        #expect(keeper.owedCount == 1 && keeper.kept("r", idTag: pending.idTag, found: pending)?.outcome.requestID == "r")
        #expect(keeper.kept("r", idTag: pending.idTag, found: nil) == nil, "owed: only its request holds it")
        keeper.settle(pending, keep: true)
        #expect(keeper.owedCount == 0 && pending.owedOutcome == nil)
        #expect(keeper.kept("r", idTag: pending.idTag, found: nil)?.outcome.requestID == "r")
    }

    @Test func anAcknowledgedOwnIDIsNotKeptAsRecent() {
        let keeper = keeper()
        let pending = F.request("client:1")
        #expect(keeper.keep(outcome("client:1"), of: pending))
        keeper.settle(pending, keep: false)
        #expect(keeper.keptCount == 0)
    }

    @Test func overTheByteBudgetAnOutcomeIsOnlyRecent() {
        let keeper = keeper(bytes: 1)
        let pending = F.request("r")
        #expect(!keeper.keep(outcome("r"), of: pending), "its request leaves the table")
        #expect(keeper.owedCount == 0 && pending.owedOutcome == nil)
        #expect(keeper.kept("r", idTag: pending.idTag, found: nil) != nil)
    }

    @Test func aMajordomoOutcomeIsNotKept() {
        let keeper = keeper()
        let sender = RequestSender(address: ClientAddress(routingID: [1], protocol: .majordomo(.v01, service: "Echo.say")), share: ClientShare())
        #expect(!keeper.keep(outcome("m"), of: F.request("m", sender: sender)))
        #expect(keeper.keptCount == 0)
    }

    @Test func anOwedOutcomeComesDueAfterItsDeadlineAndTheGrace() {
        let keeper = keeper()
        let pending = F.request("r", deadline: .seconds(1))
        #expect(keeper.keep(outcome("r"), of: pending))
        #expect(keeper.dueOwed(now: F.origin + .seconds(5)).isEmpty)
        #expect(keeper.dueOwed(now: F.origin + .seconds(7)).map(\.requestID) == ["r"])
    }

    @Test func aPublicationIsNumberedAtItsPositionAndItsActionCounts() {
        let keeper = keeper()
        let first = keeper.publication(for: outcome("a"), position: 7), second = keeper.publication(for: outcome("b"), position: 8)
        #expect(first.sequences[.all] == 7 && second.sequences[.all] == 8)
        #expect(second.sequences[.action] == first.sequences[.action] + 1)
    }
}
