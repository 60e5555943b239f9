import ActionJournal
import Testing

/// The replication messages' bytes: what a leader and a standby exchange.
@Suite("Replication messages")
struct ReplicationMessageTests {
    @Test func everyKindComesBackAsItWasSent() throws {
        for kind in [ReplicationMessage.Kind.snapshot, .append, .acknowledged, .resync, .staleEpoch, .probe] {
            let payload: [UInt8]? = kind == .snapshot || kind == .append ? [1, 2, 3, 0xFF] : nil
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
        unknown[5] = 9
        #expect(throws: ReplicationMessageError.unknownKind(9)) { try ReplicationMessage.decode(header: unknown, payload: [1]) }
        #expect(throws: ReplicationMessageError.payloadMismatch) { try ReplicationMessage.decode(header: good, payload: nil) }
        let acknowledgement = ReplicationMessage(.acknowledged, epoch: 0, stream: 1, sequence: 1).header
        #expect(throws: ReplicationMessageError.payloadMismatch) { try ReplicationMessage.decode(header: acknowledgement, payload: [1]) }
    }
}

/// The standby's rules for what it applies: epochs, streams and sequences.
@Suite("Replica position")
struct ReplicaPositionTests {
    func message(_ kind: ReplicationMessage.Kind, epoch: UInt64 = 0, stream: UInt64 = 5, sequence: UInt64) -> ReplicationMessage {
        ReplicationMessage(kind, epoch: epoch, stream: stream, sequence: sequence, payload: [0])
    }

    @Test func appendsWaitForASnapshotThenFollowInOrder() {
        var position = ReplicaPosition()
        // A started standby follows no stream: its file may be older than the leader's.
        #expect(position.decide(message(.append, sequence: 1)) == .resync)
        let snapshot = message(.snapshot, sequence: 3)
        #expect(position.decide(snapshot) == .install)
        position.applied(snapshot)
        #expect(position.stream == 5 && position.sequence == 3)
        #expect(position.decide(message(.append, sequence: 4)) == .append)
        position.applied(message(.append, sequence: 4))
        #expect(position.decide(message(.append, sequence: 4)) == .alreadyHave)
        #expect(position.decide(message(.append, sequence: 6)) == .resync, "a gap")
        #expect(position.decide(message(.append, stream: 9, sequence: 5)) == .resync, "another leader's stream")
        // A compaction arrives as a snapshot within the stream.
        #expect(position.decide(message(.snapshot, sequence: 5)) == .install)
    }

    @Test func aLowerEpochThanOneSeenIsRefused() {
        var position = ReplicaPosition(epoch: 3)
        #expect(position.decide(message(.snapshot, epoch: 2, sequence: 1)) == .staleEpoch)
        #expect(position.decide(message(.append, epoch: 2, sequence: 1)) == .staleEpoch)
        #expect(position.epoch == 3)
        #expect(position.decide(message(.snapshot, epoch: 4, sequence: 1)) == .install)
        #expect(position.epoch == 4, "a higher epoch is remembered")
        #expect(position.decide(message(.snapshot, epoch: 3, sequence: 1)) == .staleEpoch)
        #expect(position.decide(message(.snapshot, epoch: 4, sequence: 1)) == .install, "the same epoch is taken")
    }

    /// A probe carries the leader's last sequence: a standby without it lost something.
    @Test func aProbeIsAnsweredWithThePositionOrARequestForASnapshot() {
        var position = ReplicaPosition()
        let probe = ReplicationMessage(.probe, epoch: 0, stream: 5, sequence: 3)
        #expect(position.decide(probe) == .resync, "a restarted standby follows no stream")
        position.applied(message(.snapshot, sequence: 3))
        #expect(position.decide(probe) == .alreadyHave)
        #expect(position.decide(ReplicationMessage(.probe, epoch: 0, stream: 5, sequence: 4)) == .resync, "sequence 4 was lost")
    }

    @Test func answersAreNotAppliedByAStandby() {
        var position = ReplicaPosition()
        #expect(position.decide(ReplicationMessage(.acknowledged, epoch: 0, stream: 5, sequence: 1)) == .ignore)
    }
}
