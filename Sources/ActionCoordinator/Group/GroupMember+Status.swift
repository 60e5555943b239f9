import Foundation
import GroupLeadership

extension GroupMember {
    /// Where the member stands now: its role and epoch, the leader and in-sync set as last
    /// seen, and while it leads its replication (from its coordinator's counters). A standby
    /// reads the in-sync set from etcd here (it does not follow it otherwise); when etcd does
    /// not answer, the set is the one last read.
    public func status() async -> GroupMemberStatus {
        var status = state.status
        switch status.role {
        case .leader:
            guard let coordinator = state.servingCoordinator else { break }
            let statistics = await coordinator.statistics()
            status.replication = GroupMemberStatus.Replication(
                configured: statistics.standbys, inSync: statistics.standbysInSync,
                required: configuration.minimumInSyncStandbys, ackLagMicroseconds: statistics.standbyAckLagMicroseconds
            )
        case .standby:
            guard let read = try? await client.range(.key(CampaignCondition.inSyncKey(group: configuration.group))) else { break }
            let inSyncSet = read.first.flatMap { try? JSONDecoder().decode([String].self, from: $0.value) }
            state.recorded(inSyncSet: inSyncSet)
            status.inSyncSet = inSyncSet
        }
        return status
    }

    /// The coordinator of the term this member leads, while its lease lets it serve; `nil` on
    /// a standby. A new one each term: ask again rather than keep it.
    public var servingCoordinator: Coordinator? {
        state.servingCoordinator
    }

    /// Where the member stands as last seen, without asking etcd or the coordinator: what a
    /// readiness probe reads.
    public var lastKnownStatus: GroupMemberStatus {
        state.status
    }
}
