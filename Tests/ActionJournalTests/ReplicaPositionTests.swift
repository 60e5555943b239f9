import ActionJournal
import Testing

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

    /// A tail is the leader's file given as what follows the standby's: installed as a snapshot.
    @Test func aTailIsInstalledLikeASnapshot() {
        var position = ReplicaPosition()
        let tail = message(.tail, stream: 8, sequence: 2)
        #expect(position.decide(tail) == .install)
        position.applied(tail)
        #expect(position.stream == 8 && position.sequence == 2)
        #expect(position.decide(message(.append, stream: 8, sequence: 3)) == .append)
        #expect(position.decide(message(.held, sequence: 1)) == .ignore, "a standby's own message")
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

    /// Only the leader the standby copies may say it is stepping down.
    @Test func aLeaderSteppingDownIsHeardFromTheStreamFollowedOnly() {
        var position = ReplicaPosition(epoch: 3)
        let steppingDown = ReplicationMessage(.steppingDown, epoch: 3, stream: 5, sequence: 9)
        #expect(position.decide(steppingDown) == .ignore, "a restarted standby follows no stream yet")
        position.applied(message(.snapshot, epoch: 3, sequence: 9))
        #expect(position.decide(steppingDown) == .leaderSteppingDown)
        #expect(position.decide(ReplicationMessage(.steppingDown, epoch: 3, stream: 6, sequence: 1)) == .ignore, "another leader's stream")
        #expect(position.decide(ReplicationMessage(.steppingDown, epoch: 2, stream: 5, sequence: 9)) == .staleEpoch)
    }

    @Test func answersAreNotAppliedByAStandby() {
        var position = ReplicaPosition()
        #expect(position.decide(ReplicationMessage(.acknowledged, epoch: 0, stream: 5, sequence: 1)) == .ignore)
    }
}
