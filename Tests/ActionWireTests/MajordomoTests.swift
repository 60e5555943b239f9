import Testing
@testable import ActionWire

@Suite("Majordomo MDP/0.2")
struct MajordomoTests {
    static let header = Array("MDPC02".utf8)
    static let service = Array("Echo.say".utf8)
    static let body = Array(#"{"text":"hi"}"#.utf8)

    @Test func rfc18RequestAndReply() throws {
        // After the routing id, as a DEALER client following RFC 18 sends it.
        let frames = WireFrameList([[0xAA], Self.header, [0x01], Self.service, Self.body])
        #expect(MajordomoRequest.matches(frames, at: 1))
        let request = try MajordomoRequest.decode(frames, at: 1)
        #expect(request == MajordomoRequest(dialect: .rfc18, service: "Echo.say", body: Self.body))
        var reply = WireFrameList()
        MajordomoRequest.encodeFinalReply(dialect: .rfc18, service: "Echo.say", body: [0x7B, 0x7D], into: &reply)
        #expect(reply.frames == [Self.header, [0x03], Self.service, [0x7B, 0x7D]])
    }

    @Test func majortomoRequestAndReply() throws {
        // Exactly what majortomo 0.2.0's Client.send produces (verified against the package).
        let frames = WireFrameList([[0xAA], [], Self.header, [0x02], Self.service, Self.body])
        let request = try MajordomoRequest.decode(frames, at: 1)
        #expect(request == MajordomoRequest(dialect: .delimited, service: "Echo.say", body: Self.body))
        var reply = WireFrameList()
        MajordomoRequest.encodeFinalReply(dialect: .delimited, service: "Echo.say", body: [0x7B, 0x7D], into: &reply)
        #expect(reply.frames == [[], Self.header, [0x04], [0x7B, 0x7D]])
    }

    @Test func rfc18FromAReqSocket() throws {
        let frames = WireFrameList([[0xAA], [], Self.header, [0x01], Self.service, Self.body])
        let request = try MajordomoRequest.decode(frames, at: 1)
        #expect(request.dialect == .rfc18Delimited)
        var reply = WireFrameList()
        MajordomoRequest.encodeFinalReply(dialect: .rfc18Delimited, service: "Echo.say", body: [0x7B, 0x7D], into: &reply)
        #expect(reply.frames == [[], Self.header, [0x03], Self.service, [0x7B, 0x7D]])
    }

    @Test func badMajordomoRequestsAreRejected() {
        let cases: [[[UInt8]]] = [
            [[0xAA], Self.header],
            [[0xAA], Self.header, [0x02], Self.service],
            [[0xAA], [], Self.header, [0x03], Self.service],
            [[0xAA], Self.header, [0x01], [], Self.body],
            [[0xAA], Self.header, [0x01], Self.service, Self.body, Self.body],
            [[0xAA], Array("MDPW02".utf8), [0x01], Self.service],
        ]
        for frames in cases {
            #expect(throws: WireError.self) { try MajordomoRequest.decode(WireFrameList(frames), at: 1) }
        }
        #expect(!MajordomoRequest.matches(WireFrameList([[0xAA], WireHeader.bytes(.ping)]), at: 1))
    }
}
