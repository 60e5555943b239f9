import Testing
@testable import ActionWire

@Suite("Wire batching")
struct WireBatchingTests {
    @Test func runsKeepToTheRecordAndByteLimitsAndTakeAnOversizeRecordAlone() {
        let sizes = [10, 10, 300_000, 10] + Array(repeating: 1, count: 600)
        let runs = WireBatching.runs(of: sizes, size: { $0 })
        // In order, every record once.
        #expect(runs.flatMap { Array($0) } == Array(sizes.indices))
        #expect(runs.first == 0..<2, "the next record would pass the byte bound")
        #expect(runs[1] == 2..<3, "a record over the bound goes alone")
        #expect(runs.allSatisfy { $0.count <= WireBatching.maxRecords })
        #expect(runs.map(\.count) == [2, 1, 256, 256, 89])  // the last 601 at most 256 a run
        #expect(WireBatching.runs(of: sizes, maxRecords: 1, size: { $0 }).count == sizes.count)
        #expect(WireBatching.runs(of: [Int](), size: { $0 }).isEmpty)
        #expect(WireBatching.isFull(count: 0, bytes: 0, adding: 10_000_000) == false)
        #expect(WireBatching.isFull(count: 256, bytes: 0, adding: 1))
    }
}
