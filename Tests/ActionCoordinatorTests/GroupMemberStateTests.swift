import Foundation
import GroupLeadership
import Locking
import Testing
@testable import ActionCoordinator

/// What a group member's HTTP side reads as terms come and go: its role, the leader it saw, how
/// many leaderships and terms, and the coordinator of the term it leads while it may serve.
@Suite("Group member state")
struct GroupMemberStateTests {
    static func coordinator() throws -> Coordinator {
        var configuration = CoordinatorConfiguration()
        configuration.clientsEndpoint = "tcp://127.0.0.1:*"
        configuration.workersEndpoint = "tcp://127.0.0.1:*"
        configuration.outcomesEndpoint = "tcp://127.0.0.1:*"
        return try Coordinator(configuration: configuration)
    }

    @Test func eachNewEpochIsOneLeadershipChangeHoweverOftenItIsSeen() {
        let state = GroupMemberState(group: "g", member: "a")
        #expect(state.status.leader == nil && state.status.leadershipChanges == 0)
        // Each term's elector reports the leader it reads again.
        state.observed(.held(LeaderRecord(member: "b", leaseID: 1, epoch: 10)))
        state.observed(.held(LeaderRecord(member: "b", leaseID: 1, epoch: 10)))
        #expect(state.status.leader == "b" && state.status.leaderEpoch == 10 && state.status.leadershipChanges == 1)
        state.observed(.unknown)
        #expect(state.status.leader == "b", "an unknown view keeps the leader last seen")
        state.observed(.vacant)
        #expect(state.status.leader == nil && state.status.leaderEpoch == nil)
        state.observed(.held(LeaderRecord(member: "c", leaseID: 2, epoch: 14)))
        #expect(state.status.leader == "c" && state.status.leaderEpoch == 14 && state.status.leadershipChanges == 2)
    }

    @Test func aLeaderServesItsTermsCoordinatorOnlyWhileItsLeaseLetsIt() async throws {
        let state = GroupMemberState(group: "g", member: "a")
        let coordinator = try Self.coordinator()
        defer { Task { await coordinator.stop() } }
        let mayServe = Locked(true)
        state.startedLeading(epoch: 21, term: .init(coordinator: coordinator, mayServe: { mayServe.withLock { $0 } }))
        state.recorded(inSyncSet: ["a", "b"])
        var status = state.status
        #expect(status.role == .leader && status.epoch == 21 && status.termsLed == 1 && status.inSyncSet == ["a", "b"])
        // It knows it leads before its elector reads the key it created, and that read is no new change.
        #expect(status.leader == "a" && status.leaderEpoch == 21 && status.leadershipChanges == 1)
        state.observed(.held(LeaderRecord(member: "a", leaseID: 3, epoch: 21)))
        #expect(state.status.leadershipChanges == 1)
        #expect(state.servingCoordinator === coordinator)
        #expect(status.unreadiness(coordinatorServing: true) == nil)

        // The lease may have expired: no coordinator, though the member has not heard yet.
        mayServe.withLock { $0 = false }
        #expect(state.servingCoordinator == nil)
        #expect(status.unreadiness(coordinatorServing: false) != nil)

        state.becameStandby()
        status = state.status
        #expect(status.role == .standby && status.epoch == nil && status.termsLed == 1)
        #expect(state.servingCoordinator == nil)
    }

    @Test func aStandbyIsNeverReadyAndSaysWhoLeads() {
        var status = GroupMemberStatus(group: "g", member: "a")
        #expect(status.unreadiness(coordinatorServing: true) == "a is a standby: no leader is known")
        status.leader = "b"
        status.leaderEpoch = 7
        #expect(status.unreadiness(coordinatorServing: true) == "a is a standby: b leads at epoch 7")
    }
}
