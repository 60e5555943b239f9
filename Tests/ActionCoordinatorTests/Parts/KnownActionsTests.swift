@testable import ActionCoordinator
import Foundation
import Testing

/// The known actions alone: served and unserved as workers come and go, forgotten after the
/// expiry, restored after a restart, bounded.
@Suite("Coordinator parts: known actions")
struct KnownActionsTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aChangeIsReportedOnlyWhenTheSetChanges() {
        let known = KnownActions(forgetAfter: .seconds(60))
        #expect(known.served(["Echo.say"]))
        #expect(!known.served(["Echo.say"]), "served already")
        #expect(known.unservedSince("Echo.say") == nil && known.isKnown("Echo.say"))
        #expect(known.unserved(["Echo.say"], at: start))
        #expect(!known.unserved(["Echo.say"], at: start.addingTimeInterval(5)), "its first departure counts")
        #expect(known.unservedSince("Echo.say") == start)
        #expect(!known.unserved(["Never.seen"], at: start), "an unknown action does not become known by leaving")
        #expect(!known.isKnown("Never.seen"))
    }

    @Test func anUnservedActionIsForgottenAfterTheExpiryAndAServedOneNever() {
        let known = KnownActions(forgetAfter: .seconds(60))
        _ = known.served(["Echo.say", "Math.fibonacci"])
        _ = known.unserved(["Echo.say"], at: start)
        #expect(known.forgetExpired(now: start.addingTimeInterval(59)).isEmpty)
        #expect(known.forgetExpired(now: start.addingTimeInterval(61)) == ["Echo.say"])
        #expect(!known.isKnown("Echo.say") && known.isKnown("Math.fibonacci"))
        let forever = KnownActions(forgetAfter: nil)
        _ = forever.served(["Echo.say"])
        _ = forever.unserved(["Echo.say"], at: start)
        #expect(forever.forgetExpired(now: start.addingTimeInterval(1e9)).isEmpty)
    }

    @Test func aRestoredActionServedWhenJournaledIsUnservedFromTheRestart() {
        let known = KnownActions(forgetAfter: .seconds(60))
        let served: Date? = nil
        let restart = start.addingTimeInterval(100)
        known.restore(["Echo.say": served, "Math.fibonacci": start], restartedAt: restart)
        #expect(known.unservedSince("Echo.say") == restart)
        #expect(known.unservedSince("Math.fibonacci") == start)
    }

    @Test func pastItsCapacityThoseUnservedLongestAreForgottenFirst() {
        let known = KnownActions(forgetAfter: nil)
        let names = (0..<KnownActions.capacity).map { "Feature.action\($0)" }
        _ = known.served(names)
        _ = known.unserved(["Feature.action0"], at: start)
        _ = known.unserved(["Feature.action1"], at: start.addingTimeInterval(1))
        _ = known.served(["Feature.new"])
        #expect(known.actions.count == KnownActions.capacity)
        #expect(!known.isKnown("Feature.action0") && known.isKnown("Feature.action1") && known.isKnown("Feature.new"))
    }
}
