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
        let members = MemberEndpoints("tcp://a:5555,tcp://b:5555")
        let now = ContinuousClock.now
        #expect(members.waitBeforeMove(lastMovedAt: nil, now: now) == .zero, "never moved: at once")
        #expect(members.waitBeforeMove(lastMovedAt: now - .milliseconds(30), now: now) == MemberEndpoints.movePause - .milliseconds(30))
        #expect(members.waitBeforeMove(lastMovedAt: now - .seconds(1), now: now) == .zero)
    }

    /// A member that does not lead may name the leader: the next move goes there, at once,
    /// unless the last move to a named leader was less than a pause ago (two members naming
    /// each other are gone round at the usual pace).
    @Test func aNamedLeaderIsTheNextMoveAndGoesAtOnceOncePerPause() {
        var members = MemberEndpoints("tcp://a:5555,tcp://b:5555,tcp://c:5555")
        let start = ContinuousClock.now
        let unnamed = members.leaderNamed(nil)
        let elsewhere = members.leaderNamed("tcp://elsewhere:5555")
        let current = members.leaderNamed("tcp://a:5555")
        #expect(!unnamed)
        #expect(!elsewhere, "an endpoint not in the list is not followed")
        #expect(!current, "the current member is not a move")
        let named = members.leaderNamed("tcp://c:5555")
        #expect(named)
        #expect(members.waitBeforeMove(lastMovedAt: start, now: start) == .zero, "to the named leader at once")
        let first = members.advance(now: start)
        #expect(first == "tcp://c:5555")
        let second = members.advance(now: start)
        #expect(second == "tcp://a:5555", "named once: then in order again")
        // a named b straight after: paced, since a named move was just made.
        let namedAgain = members.leaderNamed("tcp://b:5555")
        #expect(namedAgain)
        let soon = start + .milliseconds(10)
        #expect(members.waitBeforeMove(lastMovedAt: start, now: soon) == MemberEndpoints.movePause - .milliseconds(10))
        #expect(members.waitBeforeMove(lastMovedAt: start, now: start + MemberEndpoints.movePause) == .zero)
        let third = members.advance(now: soon)
        #expect(third == "tcp://b:5555")

        // A member that answers after all keeps the peer: a leader named meanwhile is forgotten.
        let namedLast = members.leaderNamed("tcp://a:5555")
        members.stay()
        #expect(namedLast)
        let later = start + .seconds(1)
        #expect(members.waitBeforeMove(lastMovedAt: later, now: later) == MemberEndpoints.movePause, "paced: no leader named")
        let fourth = members.advance(now: later)
        #expect(fourth == "tcp://c:5555", "the next, not the leader named before")
    }
}
