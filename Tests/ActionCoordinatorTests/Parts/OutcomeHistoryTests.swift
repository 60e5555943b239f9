@testable import ActionCoordinator
import ActionJournal
import ActionWire
import Testing

/// The stream's history alone: positions, what is kept, what a replay may show, and chunks.
@Suite("Coordinator parts: outcome history")
struct OutcomeHistoryTests {
    func outcome(_ id: String, action: String = "Echo.say", session: String = "") -> WireOutcome {
        WireOutcome(requestID: id, action: action, session: session, worker: "w", closeActionStack: false,
                    result: .success(contentType: WireRequest.json, output: Array("1".utf8)))
    }

    func history(capacity: Int = 100, bytes: Int = 1 << 20, maxAge: Duration? = nil) -> OutcomeHistory {
        OutcomeHistory(capacity: capacity, byteCapacity: bytes, maxAge: maxAge)
    }

    func chunk(_ history: OutcomeHistory, from: UInt64, prefix: [UInt8] = [], maxOutcomes: Int = 100, maxScanned: Int = 1_000) -> ReplayChunk {
        history.chunk(from: from, prefix: prefix, maxOutcomes: maxOutcomes, maxBytes: 1 << 20, maxScanned: maxScanned, instance: "i")
    }

    @Test func positionsGrowByOneAndOnlyReleasedOnesAreReplayed() {
        var history = history()
        #expect((1...5).map { history.append(outcome("r\($0)"), publishedAt: 0) } == [1, 2, 3, 4, 5])
        #expect(chunk(history, from: 1).outcomes.isEmpty, "nothing is durable yet")
        history.release(upTo: 3)
        let first = chunk(history, from: 1)
        #expect(first.outcomes.map(\.position) == [1, 2, 3])
        #expect(first.outcomes.map(\.outcome.requestID) == ["r1", "r2", "r3"])
        #expect(first.head == 3 && first.next == 4 && first.caughtUp)
        history.release(upTo: 9)
        #expect(chunk(history, from: 4).outcomes.map(\.position) == [4, 5], "a release past the head stops at it")
    }

    @Test func theOldestGoFirstByCountBytesAndAge() {
        var byCount = history(capacity: 3)
        for index in 1...5 { _ = byCount.append(outcome("r\(index)"), publishedAt: 0) }
        #expect(byCount.kept.map(\.position) == [3, 4, 5] && byCount.oldest == 3)

        let size = outcome("r1").byteCount
        var byBytes = history(bytes: size * 2)
        for index in 1...5 { _ = byBytes.append(outcome("r\(index)"), publishedAt: 0) }
        #expect(byBytes.kept.map(\.position) == [4, 5])

        var byAge = history(maxAge: .seconds(10))
        _ = byAge.append(outcome("old"), publishedAt: 1_000)
        _ = byAge.append(outcome("new"), publishedAt: 9_000)
        byAge.forgetExpired(now: 12_000)
        #expect(byAge.kept.map(\.outcome.requestID) == ["new"])

        var none = history(capacity: 0)
        #expect(none.append(outcome("r1"), publishedAt: 0) == 1 && none.kept.isEmpty && none.oldest == 2)
    }

    @Test func aPositionOutsideTheHistoryIsAnsweredWithItsBounds() {
        var history = history(capacity: 3)
        for index in 1...5 { _ = history.append(outcome("r\(index)"), publishedAt: 0) }
        history.release(upTo: 5)
        let tooOld = chunk(history, from: 1)
        #expect(tooOld.outcomes.isEmpty && tooOld.oldest == 3 && tooOld.head == 5)
        let ahead = chunk(history, from: 9)
        #expect(ahead.outcomes.isEmpty && ahead.head == 5)
        let upToDate = chunk(history, from: 6)
        #expect(upToDate.outcomes.isEmpty && upToDate.caughtUp)
    }

    @Test func aFilterSkipsOthersAndAChunkEndsAtItsLimits() {
        var history = history()
        for index in 1...10 {
            _ = history.append(outcome("r\(index)", action: index.isMultiple(of: 2) ? "Math.add" : "Echo.say", session: "s"), publishedAt: 0)
        }
        history.release(upTo: 10)
        let math = chunk(history, from: 1, prefix: OutcomeTopic.prefix(feature: "Math"))
        #expect(math.outcomes.map(\.position) == [2, 4, 6, 8, 10] && math.caughtUp)
        let bySession = chunk(history, from: 1, prefix: OutcomeTopic.prefix(action: "Echo.say", session: "s"))
        #expect(bySession.outcomes.map(\.position) == [1, 3, 5, 7, 9])
        // Two outcomes, then on from the third; four looked at, then on from the fifth.
        let limited = chunk(history, from: 1, maxOutcomes: 2)
        #expect(limited.outcomes.map(\.position) == [1, 2] && limited.next == 3 && !limited.caughtUp)
        let scanned = chunk(history, from: 1, prefix: OutcomeTopic.prefix(feature: "Nothing"), maxScanned: 4)
        #expect(scanned.outcomes.isEmpty && scanned.next == 5 && !scanned.caughtUp)
    }

    @Test func aRestoredHistoryIsReleasedAndGoesOnFromItsHead() {
        var history = history(capacity: 2)
        let recovered = (1...4).map { PublishedOutcome(position: UInt64($0), publishedAt: 0, outcome: outcome("r\($0)")) }
        history.restore(recovered, head: 6, now: 0)
        #expect(history.kept.map(\.position) == [3, 4])
        #expect(chunk(history, from: 3).outcomes.map(\.position) == [3, 4])
        #expect(history.append(outcome("next"), publishedAt: 0) == 7)
    }

    @Test func aChunkSurvivesItsEncoding() throws {
        var history = history()
        for index in 1...3 { _ = history.append(outcome("r\(index)", session: "s\(index)"), publishedAt: 0) }
        history.release(upTo: 3)
        let chunk = chunk(history, from: 2)
        #expect(try ReplayChunk(bytes: chunk.bytes) == chunk)
        #expect(throws: WireError.self) { try ReplayChunk(bytes: Array(chunk.bytes.dropLast())) }
        #expect(throws: WireError.self) { try ReplayChunk(bytes: Array(chunk.bytes.prefix(20))) }
    }
}
