import ActionTransport
import Testing

/// A coordinator's endpoint, or a group's members as one comma-separated option.
@Suite("Member endpoints")
struct MemberEndpointsTests {
    @Test func oneEndpointIsNotAGroupAndStaysPut() {
        var members = MemberEndpoints("tcp://127.0.0.1:5555")
        #expect(!members.isGroup)
        #expect(members.advance() == "tcp://127.0.0.1:5555")
    }

    @Test func aListIsAGroupWalkedInOrderAndAround() {
        var members = MemberEndpoints("tcp://a:5555, tcp://b:5555,,tcp://c:5555")
        #expect(members.isGroup)
        #expect(members.all == ["tcp://a:5555", "tcp://b:5555", "tcp://c:5555"])
        #expect(members.current == "tcp://a:5555")
        #expect([members.advance(), members.advance(), members.advance()] == ["tcp://b:5555", "tcp://c:5555", "tcp://a:5555"])
    }

    /// A member naming an older epoch than one seen is deposed until the next move.
    @Test func aMemberNamingAnOlderEpochIsDeposedUntilTheNextMove() {
        var members = MemberEndpoints("tcp://a:5555,tcp://b:5555")
        #expect(members.accept(epoch: 5) && members.highestEpoch == 5)
        _ = members.advance()
        #expect(!members.accept(epoch: 3) && members.currentIsDeposed)
        #expect(members.highestEpoch == 5, "an older epoch is not remembered")
        _ = members.advance()
        #expect(!members.currentIsDeposed)
        #expect(members.accept(epoch: 5) && members.accept(epoch: 6) && members.highestEpoch == 6)
    }

    @Test func movesArePacedByThePause() {
        let now = ContinuousClock.now
        #expect(MemberEndpoints.waitBeforeMove(lastMovedAt: nil, now: now) == .zero, "never moved: at once")
        #expect(MemberEndpoints.waitBeforeMove(lastMovedAt: now - .milliseconds(30), now: now) == MemberEndpoints.movePause - .milliseconds(30))
        #expect(MemberEndpoints.waitBeforeMove(lastMovedAt: now - .seconds(1), now: now) == .zero)
    }
}
