import Testing
@testable import ActionWire

/// Every kind of bad frame is rejected with a typed error, never a crash.
@Suite("Wire rejections")
struct WireRejectionTests {
    static let perform = [WireGoldenTests.h(0x01)] + WireGoldenTests.requestFrames

    func clientError(_ frames: [[UInt8]], limits: WireLimits = WireLimits()) -> WireError.Code? {
        do {
            _ = try ClientMessage.decode(WireFrameList(frames), limits: limits)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func truncatedMessagesAreRejected() {
        for count in 0..<Self.perform.count {
            #expect(clientError(Array(Self.perform.prefix(count))) == .truncated, "prefix of \(count) frames")
        }
        var shortTimeout = Self.perform
        shortTimeout[4] = [0, 1]
        #expect(clientError(shortTimeout) == .truncated)
        #expect(clientError([[0x41, 0x42, 0x55, 0x53, 0x02]]) == .truncated)
    }

    @Test func wrongVersionIsRejected() {
        var frames = Self.perform
        frames[0][4] = 0x01  // ABP/1 peers get a clear answer, not silence
        #expect(clientError(frames) == .unsupportedVersion)
    }

    @Test func unknownAndMisdirectedCommandsAreRejected() {
        #expect(clientError([[0x41, 0x42, 0x55, 0x53, 0x02, 0x7F]]) == .unknownCommand)
        // A worker's READY on the clients socket.
        #expect(clientError([[0x41, 0x42, 0x55, 0x53, 0x02, 0x21], Array("w".utf8), [0, 0, 0, 1]]) == .unknownCommand)
        #expect(clientError([Array("MDPC02".utf8)]) == .badSignature)
        #expect(clientError([[]]) == .badSignature)
    }

    @Test func oversizeFramesAreRejected() {
        var bigInput = Self.perform
        bigInput[6] = [UInt8](repeating: 0x20, count: 2048)
        #expect(clientError(bigInput, limits: WireLimits(maxBodyBytes: 1024)) == .oversize)
        var bigName = Self.perform
        bigName[1] = [UInt8](repeating: 0x61, count: 256)
        #expect(clientError(bigName) == .oversize)
    }

    @Test func badNamesAreRejected() {
        var badUTF8 = Self.perform
        badUTF8[2] = [0x45, 0xFF, 0x2E, 0x73]
        #expect(clientError(badUTF8) == .invalidUTF8)
        var control = Self.perform
        control[3] = Array("doc\u{1F}1".utf8)
        #expect(clientError(control) == .invalidField)
        var noDot = Self.perform
        noDot[2] = Array("Echo".utf8)
        #expect(clientError(noDot) == .invalidField)
        var emptyID = Self.perform
        emptyID[1] = []
        #expect(clientError(emptyID) == .invalidField)
    }

    @Test func everyNameFollowsTheOneWireNameRule() throws {
        #expect(try WireName.validate(Array("Café.dîner".utf8), field: "name") == "Café.dîner")
        #expect(try WireName.validate([UInt8](), field: "session", allowEmpty: true) == "")
        #expect(throws: WireError(.invalidField, "session is empty")) { try WireName.validate([UInt8](), field: "session") }
        #expect(throws: WireError(.oversize, "name has 256 bytes, limit 255")) {
            try WireName.validate([UInt8](repeating: 0x61, count: 256), field: "name")
        }
        #expect(throws: WireError(.invalidUTF8, "name is not valid UTF-8")) { try WireName.validate([0xC3, 0x28], field: "name") }
        for control: UInt8 in [0x00, 0x01, 0x0A, 0x1F, 0x7F] {
            let name = Array("Echo.say".utf8) + [control]
            #expect(throws: WireError(.invalidField, "name contains a control character")) { try WireName.validate(name, field: "name") }
            // PERFORM and a Majordomo request reject it alike.
            var perform = Self.perform
            perform[2] = name
            #expect(clientError(perform) == .invalidField)
            #expect(throws: WireError.self) {
                try MajordomoRequest.decode(WireFrameList([[0xAA], [], MajordomoRequest.clientHeader, [0x02], name, []]), at: 1)
            }
        }
    }

    @Test func trailingFramesAreRejected() {
        #expect(clientError(Self.perform + [[1]]) == .extraFrames)
        #expect(clientError([WireGoldenTests.h(0x04), []]) == .extraFrames)
    }

    @Test func badOutcomeStatusIsRejected() {
        var frames = [WireGoldenTests.h(0x22)] + WireGoldenTests.successFrames
        frames[5] = [0x02, 0x00]
        #expect(throws: WireError.self) { try WorkerMessage.decode(WireFrameList(frames)) }
        frames[5] = [0x00, 0x80]
        #expect(throws: WireError.self) { try WorkerMessage.decode(WireFrameList(frames)) }
    }

    @Test func readyWithoutCreditsIsRejected() {
        let frames = [WireGoldenTests.h(0x21), Array("w".utf8), [0, 0, 0, 0]]
        #expect(throws: WireError(.invalidField, "READY offers 0 credits")) { try WorkerMessage.decode(WireFrameList(frames)) }
    }

    @Test func randomFramesNeverCrashTheDecoders() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let frameCount = Int.random(in: 0...9, using: &generator)
            var frames: [[UInt8]] = (0..<frameCount).map { _ in
                (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            if !frames.isEmpty, Bool.random(using: &generator) {
                frames[0] = [0x41, 0x42, 0x55, 0x53, 0x02, WireCommand.allCases.randomElement(using: &generator)!.rawValue]
            }
            let list = WireFrameList(frames)
            _ = try? ClientMessage.decode(list)
            _ = try? ClientReply.decode(list)
            _ = try? WorkerMessage.decode(list)
            _ = try? WorkerInstruction.decode(list)
            _ = try? StreamMessage.decode(list)
        }
    }
}
