@testable import ActionClient
import ActionWire
import Testing

/// The client's own request ids stay within a small string's 15 bytes for the first 16 777 215
/// requests, are distinct, and are valid wire names.
@Suite("Compact request ids")
struct CompactRequestIDTests {
    @Test func sequenceNumbersAreBase64MostSignificantFirst() {
        let client = "AbCdEfGhIj"
        #expect(CompactRequestID.requestID(clientID: client, sequence: 0) == "AbCdEfGhIj:A")
        #expect(CompactRequestID.requestID(clientID: client, sequence: 1) == "AbCdEfGhIj:B")
        #expect(CompactRequestID.requestID(clientID: client, sequence: 63) == "AbCdEfGhIj:_")
        #expect(CompactRequestID.requestID(clientID: client, sequence: 64) == "AbCdEfGhIj:BA")
        #expect(CompactRequestID.requestID(clientID: client, sequence: 16_777_215) == "AbCdEfGhIj:____")
        #expect(CompactRequestID.requestID(clientID: client, sequence: 16_777_216) == "AbCdEfGhIj:BAAAA")
        #expect(CompactRequestID.requestID(clientID: client, sequence: .max) == "AbCdEfGhIj:P__________")
    }

    @Test func idsUpToTheSixteenMillionthFitASmallString() {
        let client = CompactRequestID.clientID()
        for sequence: UInt64 in [1, 4_095, 4_096, 262_143, 262_144, 16_777_215] {
            #expect(CompactRequestID.requestID(clientID: client, sequence: sequence).utf8.count <= 15)
        }
        #expect(CompactRequestID.requestID(clientID: client, sequence: 16_777_216).utf8.count == 16)
    }

    @Test func idsAreDistinctAndValidNames() throws {
        let client = CompactRequestID.clientID()
        let ids = (0..<100_000 as Range<UInt64>).map { CompactRequestID.requestID(clientID: client, sequence: $0) }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(1_000) + ids.suffix(10) { try WireName.check(id, field: "request id") }
        let clients = (0..<1_000).map { _ in CompactRequestID.clientID() }
        #expect(Set(clients).count == clients.count)
        #expect(clients.allSatisfy { !$0.contains(":") })
    }
}
