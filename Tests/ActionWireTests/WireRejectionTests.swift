import ActionBusTestSupport
import Testing
@testable import ActionWire

/// Every kind of bad frame is rejected with a typed error, never a crash.
@Suite("Wire rejections")
struct WireRejectionTests {
    /// A PERFORM whose request has these fields (``WireGoldenTests/requestFrames`` by default).
    static func perform(_ fields: [[UInt8]] = WireGoldenTests.requestFrames) -> [[UInt8]] {
        [WireGoldenTests.h(0x01), WireGoldenTests.packed(fields)]
    }
    static let fields = WireGoldenTests.requestFrames

    func clientError(_ frames: [[UInt8]], limits: WireLimits = WireLimits()) -> WireError.Code? {
        do {
            _ = try ClientMessage.decode(WireFrameList(frames), limits: limits)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func truncatedMessagesAreRejected() {
        for count in 0..<Self.fields.count {
            #expect(clientError(Self.perform(Array(Self.fields.prefix(count)))) == .truncated, "record of \(count) fields")
        }
        #expect(clientError([WireGoldenTests.h(0x01)]) == .truncated, "a PERFORM without a record")
        var shortTimeout = Self.fields
        shortTimeout[3] = [0, 1]
        #expect(clientError(Self.perform(shortTimeout)) == .truncated)
        #expect(clientError([[0x41, 0x42, 0x55, 0x53, 0x04]]) == .truncated)
        // A field length running past the end of the record, or cut inside the length itself.
        let record = Self.perform()[1]
        #expect(clientError([WireGoldenTests.h(0x01), Array(record.dropLast())]) == .truncated)
        #expect(clientError([WireGoldenTests.h(0x01), Array(record.prefix(2))]) == .truncated)
        #expect(clientError([WireGoldenTests.h(0x01), [0xFF, 0xFF, 0xFF, 0xFF, 0x41]]) == .truncated)
    }

    @Test func aReadyWhoseRunningListIsEmptyOrBadIsRejected() {
        func workerError(_ frames: [[UInt8]]) -> WireError.Code? {
            do {
                _ = try WorkerMessage.decode(WireFrameList(frames))
                return nil
            } catch {
                return error.code
            }
        }
        let ready: [[UInt8]] = [WireGoldenTests.h(0x21), WireGoldenTests.t("w"), [0, 0, 0, 1], WireGoldenTests.t("Echo.say")]
        #expect(workerError(ready + [[]]) == .truncated, "the separator promises at least one running request")
        #expect(workerError(ready + [[], WireGoldenTests.t("bad\u{1}id")]) != nil)
        #expect(workerError(ready + [[], WireGoldenTests.t("c:1")]) == nil)
    }

    @Test func aReplayMustNameAPositionOfEightBytesAndAPrefixOfBoundedSize() throws {
        let replay = ClientMessage.replay(queryID: "q", prefix: OutcomeTopic.prefix(feature: "Echo"), from: 42)
        var frames = WireFrameList()
        replay.encode(into: &frames)
        #expect(try ClientMessage.decode(frames) == replay)
        var shortPosition = frames
        shortPosition.frames[3] = [0, 42]
        #expect(clientError(shortPosition.frames) == .truncated)
        var longPrefix = frames
        longPrefix.frames[2] = Array(repeating: 0x41, count: OutcomeTopic.maxPrefixBytes + 1)
        #expect(clientError(longPrefix.frames) == .oversize)
        #expect(clientError(Array(frames.frames.prefix(3))) == .truncated)
    }

    @Test func recordsBeyondTheLimitsAreRejected() {
        let record = Self.perform()[1]
        var limits = WireLimits()
        limits.maxRecordsPerMessage = 3
        #expect(clientError([WireGoldenTests.h(0x01)] + Array(repeating: record, count: 3), limits: limits) == nil)
        #expect(clientError([WireGoldenTests.h(0x01)] + Array(repeating: record, count: 4), limits: limits) == .oversize)
        // The optional seventh field holds flags: bit 0 (not user-initiated) is known, no other
        // bit is; a field after it is one too many, and so are more fields than any record has.
        #expect(clientError(Self.perform(Self.fields + [[1]])) == nil)
        #expect(clientError(Self.perform(Self.fields + [[2]])) == .invalidField)
        #expect(clientError(Self.perform(Self.fields + [[1], [1]])) == .extraFrames)
        #expect(clientError(Self.perform(Array(repeating: [0x41], count: 9))) == .extraFrames)
        // One bad record spoils the message: nothing of it is accepted.
        var bad = Self.fields
        bad[1] = Array("Echo".utf8)
        #expect(clientError([WireGoldenTests.h(0x01), record, WireGoldenTests.packed(bad)]) == .invalidField)
    }

    @Test func wrongVersionIsRejected() {
        var frames = Self.perform()
        frames[0][4] = 0x02  // ABP/2 peers get a clear answer, not silence
        #expect(clientError(frames) == .unsupportedVersion)
    }

    @Test func unknownAndMisdirectedCommandsAreRejected() {
        #expect(clientError([[0x41, 0x42, 0x55, 0x53, WireHeader.version, 0x7F]]) == .unknownCommand)
        // A worker's READY on the clients socket.
        #expect(clientError([[0x41, 0x42, 0x55, 0x53, WireHeader.version, 0x21], Array("w".utf8), [0, 0, 0, 1]]) == .unknownCommand)
        #expect(clientError([Array("MDPC02".utf8)]) == .badSignature)
        #expect(clientError([[]]) == .badSignature)
    }

    @Test func oversizeFramesAreRejected() {
        var bigInput = Self.fields
        bigInput[5] = [UInt8](repeating: 0x20, count: 2048)
        #expect(clientError(Self.perform(bigInput), limits: WireLimits(maxBodyBytes: 1024)) == .oversize)
        var bigName = Self.fields
        bigName[0] = [UInt8](repeating: 0x61, count: 256)
        #expect(clientError(Self.perform(bigName)) == .oversize)
    }

    @Test func badNamesAreRejected() {
        var badUTF8 = Self.fields
        badUTF8[1] = [0x45, 0xFF, 0x2E, 0x73]
        #expect(clientError(Self.perform(badUTF8)) == .invalidUTF8)
        var control = Self.fields
        control[2] = Array("doc\u{1F}1".utf8)
        #expect(clientError(Self.perform(control)) == .invalidField)
        var noDot = Self.fields
        noDot[1] = Array("Echo".utf8)
        #expect(clientError(Self.perform(noDot)) == .invalidField)
        var emptyID = Self.fields
        emptyID[0] = []
        #expect(clientError(Self.perform(emptyID)) == .invalidField)
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
            var fields = Self.fields
            fields[1] = name
            #expect(clientError(Self.perform(fields)) == .invalidField)
            #expect(throws: WireError.self) {
                try MajordomoRequest.decode(WireFrameList([[0xAA], [], MajordomoRequest.clientHeader, [0x02], name, []]), at: 1)
            }
        }
    }

    @Test func trailingFramesAreRejected() {
        #expect(clientError(Self.perform() + [[1]]) == .truncated, "a frame after the record is read as a record")
        #expect(clientError([WireGoldenTests.h(0x04), []]) == .extraFrames)
    }

    @Test func badOutcomeStatusIsRejected() {
        var fields = WireGoldenTests.successFrames
        fields[4] = [0x02, 0x00]
        #expect(throws: WireError.self) { try WorkerMessage.decode(WireFrameList([WireGoldenTests.h(0x22), WireGoldenTests.packed(fields)])) }
        fields[4] = [0x00, 0x80]
        #expect(throws: WireError.self) { try WorkerMessage.decode(WireFrameList([WireGoldenTests.h(0x22), WireGoldenTests.packed(fields)])) }
    }

    @Test func readyWithoutCreditsIsRejected() {
        let frames = [WireGoldenTests.h(0x21), Array("w".utf8), [0, 0, 0, 0]]
        #expect(throws: WireError(.invalidField, "READY offers 0 credits")) { try WorkerMessage.decode(WireFrameList(frames)) }
    }

    @Test(.seeded) func randomFramesNeverCrashTheDecoders() {
        var generator = SeededRandom()
        for _ in 0..<2000 {
            let frameCount = Int.random(in: 0...9, using: &generator)
            var frames: [[UInt8]] = (0..<frameCount).map { _ in
                (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            if !frames.isEmpty, Bool.random(using: &generator) {
                frames[0] = [0x41, 0x42, 0x55, 0x53, WireHeader.version, WireCommand.allCases.randomElement(using: &generator)!.rawValue]
                // Some frames made to look like packed records, to reach the field decoders.
                for index in frames.indices.dropFirst() where Bool.random(using: &generator) {
                    frames[index] = WireGoldenTests.packed(Array(frames[index...].prefix(Int.random(in: 0...8, using: &generator))))
                }
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
