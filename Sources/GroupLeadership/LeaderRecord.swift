/// Who holds a group's leader key: the member's description (the key's value), the lease the
/// key is attached to, and the epoch of that leadership, the key's create revision. A key
/// created again (by another leader, or the same member after losing it) gets a higher create
/// revision, so epochs only grow across leaders.
package struct LeaderRecord: Equatable, Sendable {
    package let member: String
    package let leaseID: Int64
    package let epoch: Int64

    package init(member: String, leaseID: Int64, epoch: Int64) {
        self.member = member
        self.leaseID = leaseID
        self.epoch = epoch
    }

    /// The record a leader key read from etcd holds.
    package init(_ keyValue: EtcdKeyValue) {
        self.init(member: keyValue.text, leaseID: keyValue.lease ?? 0, epoch: keyValue.createRevision)
    }
}
