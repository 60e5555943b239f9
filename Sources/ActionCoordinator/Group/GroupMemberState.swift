import GroupLeadership
import Locking

/// A group member's state as its HTTP side reads it: the status so far and, while it leads, the
/// term's coordinator. The member writes it as terms come and go (a new coordinator each term);
/// readers on other tasks take a copy under the lock.
final class GroupMemberState: Sendable {
    /// The coordinator of the term being led, and whether its lease still lets it serve.
    struct Term: Sendable {
        let coordinator: Coordinator
        let mayServe: @Sendable () -> Bool
    }

    private struct Current {
        var status: GroupMemberStatus
        var term: Term?
    }

    private let current: Locked<Current>

    init(group: String, member: String) {
        current = Locked(Current(status: GroupMemberStatus(group: group, member: member)))
    }

    var status: GroupMemberStatus { current.withLock { $0.status } }

    /// The coordinator of the term being led, while its lease lets it serve.
    var servingCoordinator: Coordinator? {
        guard let term = current.withLock({ $0.term }), term.mayServe() else { return nil }
        return term.coordinator
    }

    /// Who leads changed, as the elector read it.
    func observed(_ view: LeaderCampaign.LeaderView) {
        current.withLock { current in
            switch view {
            case let .held(record):
                current.status.saw(leader: record.member, epoch: record.epoch)
            case .vacant:
                current.status.leader = nil
                current.status.leaderEpoch = nil
            case .unknown:
                break
            }
        }
    }

    /// This member leads at `epoch` with `term`'s coordinator.
    func startedLeading(epoch: Int64, term: Term) {
        current.withLock { current in
            current.status.role = .leader
            current.status.epoch = epoch
            // Its own win may come before its elector reads the key it created.
            current.status.saw(leader: current.status.member, epoch: epoch)
            current.status.termsLed += 1
            current.term = term
        }
    }

    /// This member is a standby again (or still).
    func becameStandby() {
        current.withLock { current in
            current.status.role = .standby
            current.status.epoch = nil
            current.term = nil
        }
    }

    /// The in-sync set as written or read.
    func recorded(inSyncSet: [String]?) {
        current.withLock { $0.status.inSyncSet = inSyncSet }
    }
}

extension GroupMemberStatus {
    /// `leader` holds the leader key at `epoch`. Each term's elector reports the leader again,
    /// and a leader hears of its own win first: only a new epoch is a change.
    fileprivate mutating func saw(leader: String, epoch: Int64) {
        if leaderEpoch != epoch { leadershipChanges += 1 }
        self.leader = leader
        leaderEpoch = epoch
    }
}
