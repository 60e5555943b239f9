import Testing
@testable import ActionWire

/// An outcome read to be sent on (``WireOutcome/unpackForwarding(_:command:limits:)``): it reads
/// as the same outcome a plain decode gives, goes out as the bytes it came in, and once changed
/// goes out as what it says now.
@Suite("Forwarded outcomes")
struct ForwardedOutcomeTests {
    static let success = WireOutcome(
        requestID: "c1:7", action: "Echo.say", session: "s", worker: "w1", closeActionStack: true,
        userInitiated: false, result: .success(contentType: WireRequest.json, output: Array(#"{"text":"hi"}"#.utf8))
    )
    static let failure = WireOutcome(
        requestID: "c1:8", action: "Math.divide", session: "", worker: "w2", closeActionStack: false,
        nested: true, result: .failure(code: "divisionByZero", message: "cannot divide 1 by 0")
    )

    /// `outcome` packed inside a larger message, as a RESULT's records are, and read back to be sent on.
    static func forwarded(_ outcome: WireOutcome) throws -> WireOutcome {
        let message = [0xEE, 0xEE, 0xEE] + outcome.packed + [0xFF]
        return try WireOutcome.unpackForwarding(message[3..<(message.count - 1)], command: .result, limits: WireLimits())
    }

    @Test(arguments: [success, failure])
    func readsAsThePlainDecodeAndGoesOutAsItCame(_ outcome: WireOutcome) throws {
        let forwarded = try Self.forwarded(outcome)
        #expect(forwarded == outcome)
        #expect(forwarded.hashValue == outcome.hashValue)
        #expect(forwarded.requestID == outcome.requestID && forwarded.action == outcome.action)
        #expect(forwarded.session == outcome.session && forwarded.worker == outcome.worker)
        #expect(forwarded.closeActionStack == outcome.closeActionStack && forwarded.nested == outcome.nested)
        #expect(forwarded.userInitiated == outcome.userInitiated && forwarded.result == outcome.result)
        #expect(forwarded.isSuccess == outcome.isSuccess && forwarded.failureCode == outcome.failureCode)
        #expect(forwarded.successOutput.map { [$0.contentType: Array($0.output)] } == outcome.successOutput.map { [$0.contentType: Array($0.output)] })
        #expect(OutcomeJSON.encode(forwarded, sequence: 4) == OutcomeJSON.encode(outcome, sequence: 4))
        #expect(forwarded.record == outcome.packed)
        #expect(forwarded.packed == outcome.packed)
        #expect(outcome.record == nil)
    }

    @Test(arguments: [success, failure])
    func everyEncoderWritesTheSameBytesForEither(_ outcome: WireOutcome) throws {
        let forwarded = try Self.forwarded(outcome)
        var viaRecord: [UInt8] = [1], viaFields: [UInt8] = [1]
        #expect(forwarded.appendPacked(to: &viaRecord) == WireOutcome.frameCount)
        #expect(outcome.appendPacked(to: &viaFields) == WireOutcome.frameCount)
        #expect(viaRecord == viaFields)

        var framesViaRecord = PackedFrames(), framesViaFields = PackedFrames()
        ClientReply.outcomeBatch([forwarded, forwarded]).encode(into: &framesViaRecord)
        ClientReply.outcomeBatch([outcome, outcome]).encode(into: &framesViaFields)
        #expect(framesViaRecord.bytes == framesViaFields.bytes && framesViaRecord.ends == framesViaFields.ends)

        let sequences = OutcomeSequences([1, 2, 3, 4, 5, 6].prefix(OutcomeSequences.Scope.allCases.count).map { UInt64($0) })
        #expect(OutcomeEvent(sequences: sequences, outcome: forwarded).packed == OutcomeEvent(sequences: sequences, outcome: outcome).packed)

        // The frame-per-field encoding (the journal's older form, a decoder's input) too.
        var fields = WireFrameList()
        forwarded.encode(into: &fields)
        #expect(try WireOutcome.decode(fields: fields) == outcome)
    }

    @Test func aChangedOutcomeGoesOutAsItIsNow() throws {
        var changed = try Self.forwarded(Self.success)
        changed.userInitiated = true
        changed.worker = "w9"
        #expect(changed.record == nil)
        let decoded = try WireOutcome.unpack(changed.packed[...], command: .outcome, limits: WireLimits())
        #expect(decoded.userInitiated && decoded.worker == "w9")
        #expect(decoded.result == Self.success.result && decoded.requestID == Self.success.requestID)
        #expect(decoded != Self.success)
    }

    /// An outcome's fields share one box between copies (``WireOutcome``'s storage): a change to
    /// one copy must leave every other as it was, its record and output included.
    @Test func aChangeToOneCopyLeavesTheOthersAsTheyWere() throws {
        let original = try Self.forwarded(Self.success)
        var changed = original
        let untouched = original
        changed.worker = "w9"
        changed.closeActionStack = false
        #expect(changed.worker == "w9" && !changed.closeActionStack && changed.record == nil)
        #expect(changed.result == Self.success.result)
        for copy in [original, untouched] {
            #expect(copy.worker == "w1" && copy.closeActionStack)
            #expect(copy.record == Self.success.packed)
            #expect(copy == Self.success)
        }
        var failed = original
        failed.result = .failure(code: "timeout", message: "too slow")
        #expect(failed.failureCode == "timeout" && failed.record == nil)
        #expect(original.result == Self.success.result && original.record == Self.success.packed)
    }

    @Test func aRecordThePlainDecodeRefusesIsRefusedAlike() {
        // Status flags with an unknown bit, and a record cut inside its output.
        var badFlags = Self.success.packed
        let statusAt = badFlags.count - (4 + Int(#"{"text":"hi"}"#.utf8.count)) - (4 + WireRequest.json.utf8.count) - 2
        badFlags[statusAt + 1] = 0x80
        let cut = Self.success.packed.dropLast()
        for record in [badFlags[...], cut] {
            #expect(throws: WireError.self) { try WireOutcome.unpack(record, command: .result, limits: WireLimits()) }
            #expect(throws: WireError.self) { try WireOutcome.unpackForwarding(record, command: .result, limits: WireLimits()) }
        }
        // An output over the limit.
        var limits = WireLimits()
        limits.maxBodyBytes = 4
        #expect(throws: WireError.self) { try WireOutcome.unpackForwarding(Self.success.packed[...], command: .result, limits: limits) }
    }
}
