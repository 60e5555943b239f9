import Testing
@testable import ActionWire

/// A packed record's fields as the codec reads them, from a record that is a slice of a larger
/// message (as records are), and the bytes-as-text helper names are made with.
@Suite("Packed records: fields and hex text")
struct PackedRecordFieldTests {
    /// `fields` packed back to back, each a 4-byte big-endian length and its bytes.
    static func pack(_ fields: [[UInt8]]) -> [UInt8] {
        var writer = PackedRecordWriter(capacity: 64)
        for field in fields { writer.append(field) }
        return writer.bytes
    }

    @Test func everyFieldOfAFullRecordInsideALargerBuffer() throws {
        let fields: [[UInt8]] = (0..<PackedRecord.maxFields).map { index in Array(repeating: UInt8(index), count: index * 3) }
        let message = [0xEE, 0xEE] + Self.pack(fields) + [0xFF]
        let record = try PackedRecord(message[2..<(message.count - 1)], command: .result)
        #expect(record.count == fields.count)
        for (index, field) in fields.enumerated() {
            #expect(Array(record.frame(at: index)) == field, "field \(index)")
        }
    }

    @Test func anEmptyFrameHasNoFieldsAndEmptyFieldsAreKept() throws {
        #expect(try PackedRecord([][...], command: .result).count == 0)
        let record = try PackedRecord(Self.pack([[], [7], []])[...], command: .result)
        #expect(record.count == 3)
        #expect(record.frame(at: 0).isEmpty && Array(record.frame(at: 1)) == [7] && record.frame(at: 2).isEmpty)
    }

    @Test func tooManyFieldsOrACutLengthIsRefused() {
        let nine = Self.pack(Array(repeating: [1], count: PackedRecord.maxFields + 1))
        #expect(throws: WireError.self) { try PackedRecord(nine[...], command: .result) }
        let cut = Self.pack([[1, 2, 3]]).dropLast()
        #expect(throws: WireError.self) { try PackedRecord(cut, command: .result) }
        #expect(throws: WireError.self) { try PackedRecord([0, 0][...], command: .result) }
    }

    @Test func recordsAppendedInPlaceAreTheirPackedBytesAndCountTheirFields() throws {
        let outcome = WireOutcome(requestID: "r1", action: "Echo.say", session: "s", worker: "w1", closeActionStack: true,
                                  result: .success(contentType: WireRequest.json, output: Array(#"{"text":"hi"}"#.utf8)))
        let request = WireRequest(requestID: "r2", action: "Echo.say", input: [0x7B, 0x7D])
        var background = request
        background.userInitiated = false
        var buffer: [UInt8] = [0xAB]
        #expect(outcome.appendPacked(to: &buffer) == WireOutcome.frameCount)
        #expect(request.appendPacked(to: &buffer) == WireRequest.frameCount)
        #expect(background.appendPacked(to: &buffer) == WireRequest.frameCount + 1)
        #expect(buffer == [0xAB] + outcome.packed + request.packed + background.packed)
    }

    @Test func aRequestDecodedLeavingItsInputIsThePlainDecodeAndRefusedAlike() throws {
        var background = WireRequest(requestID: "r1", action: "Echo.say", session: "s", timeoutMilliseconds: 250,
                                     contentType: "text/plain", input: Array("hello".utf8))
        background.userInitiated = false
        for request in [background, WireRequest(requestID: "r2", action: "Echo.say", input: [])] {
            let message = [0xEE] + request.packed + [0xFF]
            let record = message[1..<(message.count - 1)]
            let (head, input) = try WireRequest.unpackLeavingInput(record, command: .perform, limits: WireLimits())
            #expect(head.input.isEmpty && Array(input) == request.input)
            var whole = head
            whole.input = Array(input)
            #expect(whole == request)
        }
        // An input over the limit, an action without a dot, unknown flags: refused by both.
        var limits = WireLimits()
        limits.maxBodyBytes = 4
        let noDot = WireRequest(requestID: "r3", action: "Echo", input: []).packed
        var badFlags = background.packed
        badFlags[badFlags.count - 1] = 0x80
        for (record, limits) in [(background.packed, limits), (noDot, WireLimits()), (badFlags, WireLimits())] {
            #expect(throws: WireError.self) { try WireRequest.unpack(record[...], command: .perform, limits: limits) }
            #expect(throws: WireError.self) { try WireRequest.unpackLeavingInput(record[...], command: .perform, limits: limits) }
        }
    }

    @Test func hexTextOfEveryByte() {
        let bytes = (0...255).map { UInt8($0) }
        let expected = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(HexText.of(bytes) == expected)
        #expect(HexText.of(bytes[250...]) == "fafbfcfdfeff")
        #expect(HexText.of([UInt8]()) == "")
    }
}
