import Testing
@testable import ActionWire

/// Outcome records written straight into a message's buffer are the bytes the codec writes
/// through any other writer, after frames already there, and decode back.
@Suite("Packed frames: records written in place")
struct PackedFramesRecordTests {
    static let outcomes = [
        WireOutcome(requestID: "AbCdEfGhIj:B", action: "Echo.say", session: "s1", worker: "w1", closeActionStack: true,
                    result: .success(contentType: WireRequest.json, output: Array(#"{"text":"hello"}"#.utf8))),
        WireOutcome(requestID: "a-longer-idempotency-key-0001", action: "Fault.fail", session: "", worker: "w2",
                    closeActionStack: false, result: .failure(code: "actionFailed", message: "boom")),
    ]

    @Test func aBatchInPlaceMatchesTheFrameListAndDecodes() throws {
        let reply = ClientReply.outcomeBatch(Self.outcomes)
        var list = WireFrameList()
        list.append(Array("client".utf8))
        reply.encode(into: &list)
        var packed = PackedFrames()
        packed.append(Array("client".utf8))
        reply.encode(into: &packed)
        #expect(packed.count == list.count)
        for index in 0..<list.count { #expect(Array(packed.frame(at: index)) == Array(list.frame(at: index)), "frame \(index)") }
        #expect(try ClientReply.decode(packed, at: 1) == reply)

        let result = WorkerMessage.resultBatch(Self.outcomes)
        var frames = PackedFrames()
        result.encode(into: &frames)
        #expect(try WorkerMessage.decode(frames) == result)
        #expect(Array(frames.frame(at: 1)) == Self.outcomes[0].packed)
    }

    @Test func requestsInPlaceMatchTheirPackedRecordsAndDecode() throws {
        let requests = [
            WireRequest(requestID: "AbCdEfGhIj:C", action: "Echo.say", session: "s1", input: Array(#"{"text":"hi"}"#.utf8)),
            WireRequest(requestID: "key-7", action: "Math.add", session: "", input: [], userInitiated: false),
        ]
        let perform = ClientMessage.performBatch(requests)
        var packed = PackedFrames()
        perform.encode(into: &packed)
        #expect(Array(packed.frame(at: 1)) == requests[0].packed)
        #expect(Array(packed.frame(at: 2)) == requests[1].packed)
        #expect(try ClientMessage.decode(packed) == perform)
    }
}
