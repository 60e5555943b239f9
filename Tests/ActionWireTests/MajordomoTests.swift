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

    @Test func aServiceWithAControlCharacterIsRejectedInEveryDialect() {
        // The service becomes an action name: 0x01 was once journaled and then unreadable at
        // restart, and 0x1F, the outcome stream's topic separator, would forge topics.
        let services = ["Echo.say\u{01}", "Echo\u{1F}say.x", "Echo.say\u{1F}", "Echo.say\u{7F}", "Echo.\nsay", "\u{00}Echo.say"]
        let dialects: [[[UInt8]]] = [[Self.header, [0x01]], [[], Self.header, [0x02]], [[], Self.header, [0x01]]]
        for service in services {
            for dialect in dialects {
                let frames = WireFrameList([[0xAA]] + dialect + [Array(service.utf8), Array("{}".utf8)])
                let error = #expect(throws: WireError.self) { try MajordomoRequest.decode(frames, at: 1) }
                #expect(error?.code == .invalidField, "\(Array(service.utf8))")
            }
        }
        let tooLong = WireFrameList([[0xAA], Self.header, [0x01], [UInt8](repeating: 0x61, count: 256), Self.body])
        #expect(throws: WireError(.oversize, "Majordomo service has 256 bytes, limit 255")) {
            try MajordomoRequest.decode(tooLong, at: 1)
        }
        let notUTF8 = WireFrameList([[0xAA], Self.header, [0x01], [0x45, 0xFF, 0x2E, 0x73], Self.body])
        #expect(throws: WireError(.invalidUTF8, "Majordomo service is not valid UTF-8")) {
            try MajordomoRequest.decode(notUTF8, at: 1)
        }
    }
}
