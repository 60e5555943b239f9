import ActionCoordinator
import Foundation
import Testing
@testable import ActionOperations

/// A group member's `/readyz`: 200 only on a leader whose coordinator serves, so a Service in
/// front of every member routes to the leader alone; every answer says who leads.
@Suite("Group member readiness")
struct GroupOperationsTests {
    static func status(role: GroupMemberStatus.Role, leader: String?, epoch: Int64?) -> GroupMemberStatus {
        var status = GroupMemberStatus(group: "g", member: "a")
        status.role = role
        status.leader = leader
        status.leaderEpoch = epoch
        status.epoch = role == .leader ? epoch : nil
        return status
    }

    static func readiness(_ reply: OperationsServer.Reply) throws -> GroupOperations.Readiness {
        try JSONDecoder().decode(GroupOperations.Readiness.self, from: reply.body)
    }

    @Test func aServingLeaderIsReady() throws {
        let reply = GroupOperations.readiness(Self.status(role: .leader, leader: "a", epoch: 9), coordinatorServing: true)
        #expect(reply.status == 200)
        let readiness = try Self.readiness(reply)
        #expect(readiness.ready && readiness.role == .leader && readiness.leader == "a" && readiness.epoch == 9 && readiness.reason == nil)
    }

    @Test func aLeaderWhoseCoordinatorIsNotServingIsNotReady() throws {
        let reply = GroupOperations.readiness(Self.status(role: .leader, leader: "a", epoch: 9), coordinatorServing: false)
        #expect(reply.status == 503)
        let readiness = try Self.readiness(reply)
        #expect(!readiness.ready && readiness.role == .leader && readiness.reason != nil)
    }

    @Test(arguments: [("b", Int64(12)), (nil, nil)] as [(String?, Int64?)])
    func aStandbyIsNotReadyAndNamesTheLeaderItSaw(leader: String?, epoch: Int64?) throws {
        // Whether its (absent) coordinator serves does not matter.
        for serving in [false, true] {
            let reply = GroupOperations.readiness(Self.status(role: .standby, leader: leader, epoch: epoch), coordinatorServing: serving)
            #expect(reply.status == 503)
            let readiness = try Self.readiness(reply)
            #expect(!readiness.ready && readiness.role == .standby && readiness.leader == leader && readiness.epoch == epoch)
        }
    }

    @Test func coordinatorRoutesOnAStandbyAnswer503NamingTheLeader() throws {
        let reply = GroupOperations.notLeading(Self.status(role: .standby, leader: "b", epoch: 12))
        #expect(reply.status == 503)
        let body = try JSONDecoder().decode([String: String].self, from: reply.body)
        #expect(body["error"] == "not the leader: a is a standby: b leads at epoch 12")
    }
}
