import Foundation
import GroupLeadership
import Locking

/// The leader's writes of its group's in-sync set (`/actionbus/<group>/insync`, a JSON array of
/// member names, the leader first), which the election reads: only a member in it may win.
///
/// Each write is a transaction that holds only if this leader's key is still the one it
/// created (its epoch) and the set is as this leader last wrote it (its modification
/// revision): a deposed leader writes nothing, and a write that timed out and lands late
/// cannot overwrite a newer one. After a failed or unanswered write the revision is read
/// again, so the next write can succeed.
final class InSyncSetRecord: Sendable {
    private let client: EtcdClient
    private let group: String
    private let leader: String
    private let epoch: Int64
    /// The set's modification revision as this leader last wrote or read it.
    private let lastRevision = Locked<Int64?>(nil)

    init(client: EtcdClient, group: String, leader: String, epoch: Int64) {
        self.client = client
        self.group = group
        self.leader = leader
        self.epoch = epoch
    }

    /// Writes the leader and `standbys` (member names) as the in-sync set; `false` if it was not
    /// written.
    func write(standbys: [String]) async -> Bool {
        let inSyncKey = CampaignCondition.inSyncKey(group: group)
        let revision: Int64
        if let known = lastRevision.withLock({ $0 }) {
            revision = known
        } else {
            guard let read = try? await client.range(.key(inSyncKey)) else { return false }
            revision = read.first?.modRevision ?? 0
            lastRevision.withLock { $0 = revision }
        }
        let value: Data
        do {
            value = try JSONEncoder().encode([leader] + standbys)
        } catch {
            return false
        }
        do {
            let result = try await client.transaction(
                compare: [
                    EtcdCompare(key: LeaderElector.Configuration.leaderKey(group: group), .createRevision(epoch)),
                    EtcdCompare(key: inSyncKey, .modRevision(revision)),
                ],
                success: [.put(key: inSyncKey, value: value)]
            )
            lastRevision.withLock { $0 = result.succeeded ? result.revision : nil }
            return result.succeeded
        } catch {
            lastRevision.withLock { $0 = nil }
            return false
        }
    }

    /// ``write(standbys:)`` for a thread that may block (the journal's): waits at most
    /// `timeout` for the answer.
    func writeBlocking(standbys: [String], timeout: Duration) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let written = Locked(false)
        Task {
            let result = await self.write(standbys: standbys)
            written.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout.timeInterval) == .success else {
            lastRevision.withLock { $0 = nil }
            return false
        }
        return written.withLock { $0 }
    }
}
