import ActionBusTestSupport
import ActionTransport
import ActionWire
import Foundation
import Testing
import ZeroMQ

/// Raw frames thrown at a coordinator process: it answers what it can identify and drops the
/// rest, and keeps serving.
@Suite("Coordinator under bad input", .serialized, .timeLimit(.minutes(2)))
struct SocketGarbageTests {
    @Test(.seeded) func malformedAndForeignMessagesGetErrorsOrAreDropped() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--max-message-bytes", "65536"])
        try bus.startWorker("w1", coordinator: coordinator)
        let context = try ZMQContext()
        let dealer = try Socket(context, type: .dealer)
        defer { dealer.close() }
        try dealer.setOption(.receiveTimeout, 5000)
        try dealer.connect(bus.clients)

        func reply(to frames: [[UInt8]]) throws -> ClientReply {
            try dealer.send(Multipart(frames))
            let received = try dealer.receiveBusMessage()
            return try ClientReply.decode(WireFrameList(received.frames))
        }
        var header = WireHeader.bytes(.perform)
        let fields: [[UInt8]] = [Array("g:1".utf8), Array("Echo.say".utf8), [], [0, 0, 0, 0],
                                 Array("application/json".utf8), Array(#"{"text":"x"}"#.utf8)]
        // A packed record: each field as a 4-byte big-endian length and its bytes.
        func packed(_ fields: [[UInt8]]) -> [UInt8] {
            fields.flatMap { withUnsafeBytes(of: UInt32($0.count).bigEndian, Array.init) + $0 }
        }

        // A wrong protocol version is named as such.
        header[4] = 9
        guard case .error(_, let versionCode, _) = try reply(to: [header, packed(fields)]) else {
            Issue.record("no error for a wrong version")
            return
        }
        #expect(versionCode == BusErrorCode.unsupportedVersion)
        header[4] = WireHeader.version

        // Truncated, unknown command, bad UTF-8: malformedRequest, naming the request when it can.
        let truncated = try reply(to: [header, packed(Array(fields.prefix(2)))])
        let unknown = try reply(to: [WireHeader.signature + [WireHeader.version, 0x7E]])
        var badName = fields
        badName[1] = [0xC3, 0x28, 0x2E, 0x61]
        let badUTF8 = try reply(to: [header, packed(badName)])
        // ABP/5 packs a message into one frame; one whose lengths do not add up is refused whole.
        let badPacking = try reply(to: [header + [0, 0, 0, 9, 1, 2]])
        for answer in [truncated, unknown, badUTF8, badPacking] {
            guard case .error(_, let code, _) = answer else {
                Issue.record("expected an ERROR, got \(answer)")
                continue
            }
            #expect(code == BusErrorCode.malformedRequest)
        }
        if case .error(let requestID, _, _) = badUTF8 { #expect(requestID == "g:1") }

        // Several requests in one PERFORM, one unreadable: it alone is refused, by its id; the
        // others are taken as if they had come alone.
        var good = fields, bad = fields, alsoGood = fields
        good[0] = Array("g:2".utf8)
        bad[0] = Array("g:3".utf8)
        bad[1] = Array("Echo".utf8)
        alsoGood[0] = Array("g:4".utf8)
        try dealer.send(Multipart([header, packed(good), packed(bad), packed(alsoGood)]))
        var refused: [String] = [], answered: Set<String> = []
        while answered.count < 2 {
            switch try ClientReply.decode(WireFrameList(try dealer.receiveBusMessage().frames)) {
            case .error(let requestID, let code, _):
                #expect(code == BusErrorCode.malformedRequest)
                refused.append(requestID)
            case .outcome(let outcome): answered.insert(outcome.requestID)
            case .outcomeBatch(let outcomes): answered.formUnion(outcomes.map(\.requestID))
            default: break
            }
        }
        #expect(refused == ["g:3"])
        #expect(answered == ["g:2", "g:4"])

        // Foreign garbage is dropped without an answer; an oversize frame is cut off by libzmq.
        var random = SeededRandom()
        for _ in 0..<200 {
            let frames = (0..<Int.random(in: 1...5, using: &random)).map { _ in
                (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
            try dealer.send(Multipart(frames), options: .dontWait)
        }
        try dealer.send(Multipart([[UInt8](repeating: 0x41, count: 200_000)]), options: .dontWait)

        // The coordinator still serves a valid request afterwards.
        let ok = try bus.perform("Echo.say", ["--input", #"{"text":"alive"}"#, "--json"])
        #expect(ok.process.terminationStatus == 0, "\(ok.stderr)")
        #expect(coordinator.process.isRunning)
    }
}
