/// What a coordinator leading a group (``GroupMember``) is given for its term: the epoch its
/// replication messages carry, the fence it checks before anything it decided leaves, and
/// where its in-sync set is recorded for the election to read.
package struct LeadershipTerm: Sendable {
    /// The leader key's create revision in etcd; standbys refuse anything older.
    package let epoch: UInt64
    /// In-sync standbys needed to accept new requests; fewer: `unavailable`.
    package let minimumInSyncStandbys: Int
    /// Whether the leader may still release what it decided: its lease cannot have expired.
    /// Asked after each commit's acknowledgements, before its replies leave.
    package let mayServe: @Sendable () -> Bool
    /// Records which standbys (by replication endpoint) are in sync, where only those may win
    /// the next election. Blocks until recorded; `false` if it could not be (etcd unreachable,
    /// or this member no longer leads). A standby leaves the set only once this succeeds, so
    /// no commit it lacks is released while it could still be elected.
    package let recordInSync: @Sendable (_ standbys: [String]) -> Bool
    /// Told when a write to the leader's own journal has been under way for longer than
    /// ``journalStallLimit`` (`true`), and when it is done (`false`): a leader whose disk
    /// stalled stops renewing its lease.
    package let journalStalled: @Sendable (_ stalled: Bool) -> Void

    /// How long one write to the journal's file may take before the disk counts as stalled.
    /// Above any healthy `fdatasync`, below the lease (3 s by default): the lease then runs out
    /// within a few seconds of the stall.
    package static let journalStallLimit: Duration = .seconds(2)

    package init(
        epoch: UInt64, minimumInSyncStandbys: Int, mayServe: @escaping @Sendable () -> Bool,
        recordInSync: @escaping @Sendable ([String]) -> Bool, journalStalled: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.epoch = epoch
        self.minimumInSyncStandbys = minimumInSyncStandbys
        self.mayServe = mayServe
        self.recordInSync = recordInSync
        self.journalStalled = journalStalled
    }
}
