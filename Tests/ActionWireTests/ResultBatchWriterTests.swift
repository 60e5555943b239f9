import Testing
@testable import ActionWire

/// A worker's RESULTs written record by record: the bytes any other writer makes of the same
/// outcomes, and messages handed on whole at ``WireBatching``'s limits.
@Suite("Result batch writer")
struct ResultBatchWriterTests {
    private static func outcome(_ index: Int, output: [UInt8] = Array(#"{"text":"hello"}"#.utf8)) -> WireOutcome {
        index.isMultiple(of: 3)
            ? WireOutcome(requestID: "AbCdEfGhIj:\(index)", action: "Fault.fail", session: "", worker: "w2",
                          closeActionStack: false, userInitiated: false, result: .failure(code: "actionFailed", message: "boom \(index)"))
            : WireOutcome(requestID: "AbCdEfGhIj:\(index)", action: "Echo.say", session: "s\(index)", worker: "w1",
                          closeActionStack: index.isMultiple(of: 2), result: .success(contentType: WireRequest.json, output: output))
    }

    /// Writes `outcomes` by their fields (the nested one by value), returning every message sent.
    private static func written(_ outcomes: [WireOutcome]) -> [PackedFrames] {
        var writer = ResultBatchWriter()
        var sent: [PackedFrames] = []
        for outcome in outcomes {
            if outcome.nested {
                writer.append(outcome) { sent.append($0) }
            } else {
                writer.append(
                    requestID: outcome.requestID, action: outcome.action, session: outcome.session, worker: outcome.worker,
                    closeActionStack: outcome.closeActionStack, userInitiated: outcome.userInitiated, result: outcome.result
                ) { sent.append($0) }
            }
        }
        if !writer.isEmpty { sent.append(writer.message) }
        return sent
    }

    @Test func aMessageIsTheBytesOfTheResultBatchOfTheSameOutcomes() throws {
        var outcomes = (0..<5).map { Self.outcome($0) }
        outcomes[4].nested = true
        let sent = Self.written(outcomes)
        try #require(sent.count == 1)
        var expected = PackedFrames()
        WorkerMessage.resultBatch(outcomes).encode(into: &expected)
        #expect(sent[0].bytes == expected.bytes)
        #expect(try WorkerMessage.decode(sent[0]) == .resultBatch(outcomes))
    }

    @Test func aFullMessageGoesOnWholeAndTheNextStartsWithItsOwnHeader() throws {
        let outcomes = (0..<(WireBatching.maxRecords * 2 + 3)).map { Self.outcome($0) }
        let sent = Self.written(outcomes)
        #expect(sent.count == 3)
        var decoded: [WireOutcome] = []
        for message in sent {
            guard case .resultBatch(let batch) = try WorkerMessage.decode(message) else {
                Issue.record("not a batch of results")
                continue
            }
            #expect(batch.count <= WireBatching.maxRecords)
            decoded += batch
        }
        #expect(decoded == outcomes)
    }

    @Test func largeOutputsEndAMessageBeforeItPassesTheByteLimit() throws {
        let large = [UInt8](repeating: UInt8(ascii: "x"), count: WireBatching.maxBytes / 3)
        let outcomes = [1, 2, 4, 5, 7, 8, 10].map { Self.outcome($0, output: large) }
        let sent = Self.written(outcomes)
        // Three such outputs pass the limit: two a message, and the last alone.
        #expect(sent.map { $0.count - 1 } == [2, 2, 2, 1])
        #expect(sent.allSatisfy { $0.bytes.count < WireBatching.maxBytes + 4096 })
        var decoded: [WireOutcome] = []
        for message in sent {
            switch try WorkerMessage.decode(message) {
            case .result(let one): decoded.append(one)
            case .resultBatch(let batch): decoded += batch
            default: Issue.record("not a result")
            }
        }
        #expect(decoded == outcomes)
    }
}
