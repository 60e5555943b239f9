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
}
