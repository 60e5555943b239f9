import ActionJournal
import Testing

/// The replication messages' bytes: what a leader and a standby exchange.
@Suite("Replication messages")
struct ReplicationMessageTests {
    @Test func everyKindComesBackAsItWasSent() throws {
        let prefix = JournalPrefix(length: 3, checksum: 0xCAFE_F00D).encoded
        for kind in [ReplicationMessage.Kind.snapshot, .append, .acknowledged, .resync, .staleEpoch, .probe, .tail, .held, .steppingDown] {
            let payload: [UInt8]? = switch kind {
            case .snapshot, .append: [1, 2, 3, 0xFF]
            case .tail: prefix + [4, 5]
            case .held: prefix
            default: nil
            }
            let sent = ReplicationMessage(kind, epoch: 7, stream: 0xDEAD_BEEF_0102_0304, sequence: UInt64.max - 1, payload: payload ?? [])
            #expect(sent.header.count == ReplicationMessage.headerBytes)
            let read = try ReplicationMessage.decode(header: sent.header, payload: payload)
            #expect(read == sent)
        }
    }

    /// The layout PROTOCOL.md gives: magic, version, kind, then epoch, stream and sequence big-endian.
    @Test func theHeaderIsLaidOutAsDocumented() {
        let header = ReplicationMessage(.acknowledged, epoch: 1, stream: 2, sequence: 0x0102).header
        #expect(Array(header[0..<4]) == Array("ABRP".utf8))
        #expect(header[4] == 1 && header[5] == 3)
        #expect(Array(header[6..<14]) == [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(Array(header[14..<22]) == [0, 0, 0, 0, 0, 0, 0, 2])
        #expect(Array(header[22..<30]) == [0, 0, 0, 0, 0, 0, 1, 2])
    }

    @Test func malformedFramesAreRefusedWithTheReason() {
        let good = ReplicationMessage(.append, epoch: 0, stream: 1, sequence: 1).header
        #expect(throws: ReplicationMessageError.notReplication) { try ReplicationMessage.decode(header: good.dropLast(), payload: [1]) }
        var wrongMagic = good
        wrongMagic[0] = UInt8(ascii: "X")
        #expect(throws: ReplicationMessageError.notReplication) { try ReplicationMessage.decode(header: wrongMagic, payload: [1]) }
        var newer = good
        newer[4] = 2
        #expect(throws: ReplicationMessageError.unsupportedVersion(2)) { try ReplicationMessage.decode(header: newer, payload: [1]) }
        var unknown = good
        unknown[5] = 10
        #expect(throws: ReplicationMessageError.unknownKind(10)) { try ReplicationMessage.decode(header: unknown, payload: [1]) }
        #expect(throws: ReplicationMessageError.payloadMismatch) { try ReplicationMessage.decode(header: good, payload: nil) }
        let acknowledgement = ReplicationMessage(.acknowledged, epoch: 0, stream: 1, sequence: 1).header
        #expect(throws: ReplicationMessageError.payloadMismatch) { try ReplicationMessage.decode(header: acknowledgement, payload: [1]) }
        // A tail starts with the 12 bytes of what it follows; a held is those 12 bytes alone.
        let tail = ReplicationMessage(.tail, epoch: 0, stream: 1, sequence: 1).header
        #expect(throws: ReplicationMessageError.payloadMismatch) { try ReplicationMessage.decode(header: tail, payload: Array(repeating: 0, count: 11)) }
        let held = ReplicationMessage(.held, epoch: 0, stream: 1, sequence: 1).header
        #expect(throws: ReplicationMessageError.payloadMismatch) { try ReplicationMessage.decode(header: held, payload: Array(repeating: 0, count: 13)) }
    }

    /// What a standby says it holds, and the tail a leader sends after it.
    @Test func aTailIsWhatFollowsThePrefixTheStandbyHolds() throws {
        let file: [UInt8] = Array("ABJOURN1".utf8) + (0..<200).map { UInt8($0 % 251) }
        let held = JournalPrefix(of: file[..<100])
        #expect(held.length == 100)
        #expect(JournalPrefix(decoding: held.encoded) == held)
        #expect(held.begins(file))
        #expect(!held.begins(Array(file[..<99])), "shorter than what it holds")
        var changed = file
        changed[50] ^= 1
        #expect(!held.begins(changed), "another file's start")
        let sent = ReplicationMessage(.tail, epoch: 2, stream: 3, sequence: 4, payload: held.encoded + file[100...])
        let read = try ReplicationMessage.decode(header: sent.header, payload: sent.payload)
        let parts = try #require(read.tailParts)
        #expect(parts.held == held && Array(parts.rest) == Array(file[100...]))
        #expect(Array(file[..<100]) + parts.rest == file)
    }
}
