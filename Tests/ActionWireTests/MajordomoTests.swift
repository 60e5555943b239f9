import Testing
@testable import ActionWire

@Suite("Majordomo MDP/0.1 and MDP/0.2")
struct MajordomoTests {
    static let header = Array("MDPC02".utf8)
    static let headerV01 = Array("MDPC01".utf8)
    static let workerV01 = Array("MDPW01".utf8)
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

    @Test func rfc7FromAReqSocketAndFromADealer() throws {
        // The zguide's mdcliapi (REQ: the empty frame comes from the socket) and a DEALER that
        // leaves it out; RFC 7 has no command frame.
        let delimited = WireFrameList([[0xAA], [], Self.headerV01, Self.service, Self.body])
        #expect(try MajordomoRequest.decode(delimited, at: 1) == MajordomoRequest(dialect: .v01Delimited, service: "Echo.say", body: Self.body))
        let bare = WireFrameList([[0xAA], Self.headerV01, Self.service])
        #expect(try MajordomoRequest.decode(bare, at: 1) == MajordomoRequest(dialect: .v01, service: "Echo.say", body: []))
        var reply = WireFrameList()
        MajordomoRequest.encodeFinalReply(dialect: .v01Delimited, service: "Echo.say", body: [0x7B, 0x7D], into: &reply)
        #expect(reply.frames == [[], Self.headerV01, Self.service, [0x7B, 0x7D]])
        reply = WireFrameList()
        MajordomoRequest.encodeFinalReply(dialect: .v01, service: "Echo.say", body: [0x7B, 0x7D], into: &reply)
        #expect(reply.frames == [Self.headerV01, Self.service, [0x7B, 0x7D]])
    }

    @Test func whatIsNotSpokenIsAnsweredInTheFramingItCameIn() throws {
        let error: [UInt8] = Array(#"{"outcome":"failure"}"#.utf8)
        // Another version: its own signature echoed, RFC 7's framing, the service as sent.
        let oddService = Array("Echo\u{1}say".utf8)
        let v03 = WireFrameList([[0xAA], [], Array("MDPC03".utf8), oddService, Self.body])
        let versionError = #expect(throws: WireError.self) { try MajordomoRequest.decode(v03, at: 1) }
        #expect(versionError?.code == .unsupportedVersion)
        #expect(MajordomoRequest.refusal(v03, at: 1, body: error)?.frames == [[], Array("MDPC03".utf8), oddService, error])
        // MDP/0.2 with a command that is not REQUEST: a FINAL in its dialect.
        let v02 = WireFrameList([[0xAA], Self.header, [0x09], Self.service])
        #expect(MajordomoRequest.refusal(v02, at: 1, body: error)?.frames == [Self.header, [0x03], Self.service, error])
        // Nothing to answer: a worker's signature, or no service to name.
        #expect(MajordomoRequest.refusal(WireFrameList([[0xAA], [], Self.workerV01, [0x02]]), at: 1, body: error) == nil)
        #expect(MajordomoRequest.refusal(WireFrameList([[0xAA], Self.headerV01]), at: 1, body: error) == nil)
    }

    @Test func rfc7WorkerCommands() throws {
        func decode(_ frames: [[UInt8]]) throws -> MajordomoWorkerMessage {
            try MajordomoWorkerMessage.decode(WireFrameList([[0xAA]] + frames), at: 1)
        }
        // As the zguide's mdwrkapi sends them.
        #expect(try decode([[], Self.workerV01, [0x01], Self.service]) == .ready(service: "Echo.say"))
        #expect(try decode([[], Self.workerV01, [0x03], Array("c1:7".utf8), [], Self.body])
                == .reply(clientAddress: Array("c1:7".utf8), body: [Self.body]))
        #expect(try decode([[], Self.workerV01, [0x03], Array("c1:7".utf8), []]) == .reply(clientAddress: Array("c1:7".utf8), body: []))
        #expect(try decode([[], Self.workerV01, [0x04]]) == .heartbeat)
        #expect(try decode([[], Self.workerV01, [0x05]]) == .disconnect)
        #expect(MajordomoWorkerMessage.matches(WireFrameList([[0xAA], [], Self.workerV01, [0x04]]), at: 1))
        #expect(!MajordomoWorkerMessage.matches(WireFrameList([[0xAA], [], Self.headerV01, Self.service]), at: 1))
        // And what the coordinator sends them.
        var request = WireFrameList()
        MajordomoWorkerMessage.encodeRequest(clientAddress: "c1:7", body: Self.body, into: &request)
        #expect(request.frames == [[], Self.workerV01, [0x02], Array("c1:7".utf8), [], Self.body])
        var heartbeat = WireFrameList()
        MajordomoWorkerMessage.encodeHeartbeat(into: &heartbeat)
        #expect(heartbeat.frames == [[], Self.workerV01, [0x04]])
        var disconnect = WireFrameList()
        MajordomoWorkerMessage.encodeDisconnect(into: &disconnect)
        #expect(disconnect.frames == [[], Self.workerV01, [0x05]])
    }

    @Test func badRFC7WorkerMessagesAreRejected() {
        let cases: [([[UInt8]], WireError.Code)] = [
            ([[], Self.workerV01, [0x02], Array("c".utf8), [], Self.body], .unknownCommand),  // REQUEST is the broker's
            ([[], Array("MDPW03".utf8), [0x01], Self.service], .unsupportedVersion),
            ([[], Array("MDPW02".utf8), [0x03], Array("c".utf8)], .truncated),                // PARTIAL without its empty frame
            ([[], Array("MDPW02".utf8), [0x02], Array("c".utf8), [], Self.body], .unknownCommand),  // REQUEST is the broker's
            ([[], Array("MDPW02".utf8), [0x05], []], .extraFrames),
            ([[], Self.workerV01], .truncated),
            ([[], Self.workerV01, [0x01]], .truncated),
            ([[], Self.workerV01, [0x01], Self.service, Self.service], .extraFrames),
            ([[], Self.workerV01, [0x01], Array("Echo.say\u{1F}".utf8)], .invalidField),
            ([[], Self.workerV01, [0x03], Array("c".utf8), Self.body], .invalidField),
            ([[], Self.workerV01, [0x04], []], .extraFrames),
        ]
        for (frames, code) in cases {
            let error = #expect(throws: WireError.self) { try MajordomoWorkerMessage.decode(WireFrameList([[0xAA]] + frames), at: 1) }
            #expect(error?.code == code, "\(frames)")
        }
    }

    @Test func rfc18WorkerCommands() throws {
        let v02 = Array("MDPW02".utf8)
        func decode(_ frames: [[UInt8]]) throws -> MajordomoWorkerMessage {
            try MajordomoWorkerMessage.decode(WireFrameList([[0xAA]] + frames), at: 1)
        }
        #expect(try decode([[], v02, [0x01], Self.service]) == .ready(service: "Echo.say"))
        #expect(try decode([[], v02, [0x04], Array("c1:7".utf8), [], Self.body]) == .reply(clientAddress: Array("c1:7".utf8), body: [Self.body]))
        #expect(try decode([[], v02, [0x03], Array("c1:7".utf8), [], Self.body]) == .partial(clientAddress: Array("c1:7".utf8)))
        #expect(try decode([[], v02, [0x05]]) == .heartbeat)
        #expect(try decode([[], v02, [0x06]]) == .disconnect)
        #expect(MajordomoWorkerMessage.version(WireFrameList([[0xAA], [], v02, [0x05]]), at: 1) == .v02)
        var request = WireFrameList()
        MajordomoWorkerMessage.encodeRequest(clientAddress: "c1:7", body: Self.body, version: .v02, into: &request)
        #expect(request.frames == [[], v02, [0x02], Array("c1:7".utf8), [], Self.body])
        var heartbeat = WireFrameList()
        MajordomoWorkerMessage.encodeHeartbeat(version: .v02, into: &heartbeat)
        #expect(heartbeat.frames == [[], v02, [0x05]])
        var disconnect = WireFrameList()
        MajordomoWorkerMessage.encodeDisconnect(version: .v02, into: &disconnect)
        #expect(disconnect.frames == [[], v02, [0x06]])
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
