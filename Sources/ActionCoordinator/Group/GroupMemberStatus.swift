/// What a coordinator group member knows about itself and its group: what `/api/group` answers
/// and `actionbus group` shows.
///
/// The leader and the in-sync set are as this member last saw them in etcd (a standby reads the
/// set when asked; a leader reports what it last wrote), so two members may briefly disagree.
public struct GroupMemberStatus: Codable, Equatable, Sendable {
    /// Whether the member runs the group's coordinator now.
    public enum Role: String, Codable, Sendable {
        case leader
        case standby
    }

    /// Where a leader's standbys stand, from its coordinator's counters.
    public struct Replication: Codable, Equatable, Sendable {
        /// Standbys configured (the other members).
        public var configured: Int
        /// Standbys that hold the journal and acknowledge its commits in time.
        public var inSync: Int
        /// In-sync standbys needed to accept new requests (`--min-in-sync-standbys`).
        public var required: Int
        /// How long the last standby acknowledgement took, in microseconds.
        public var ackLagMicroseconds: Int

        public init(configured: Int, inSync: Int, required: Int, ackLagMicroseconds: Int) {
            self.configured = configured
            self.inSync = inSync
            self.required = required
            self.ackLagMicroseconds = ackLagMicroseconds
        }
    }

    public var group: String
    public var member: String
    public var role: Role
    /// The epoch it leads at; `nil` on a standby.
    public var epoch: Int64?
    /// Who holds the leader key, as last seen; `nil` when no one did (or before the first read).
    public var leader: String?
    /// The epoch of that leadership.
    public var leaderEpoch: Int64?
    /// The in-sync set (member names, the leader first) as last written or read; `nil` when
    /// never recorded or not read yet.
    public var inSyncSet: [String]?
    /// The leader's replication; `nil` on a standby.
    public var replication: Replication?
    /// Terms this member has led since it started.
    public var termsLed: Int
    /// Leaderships seen begin since it started (its own included): one per failover or handover.
    public var leadershipChanges: Int

    public init(group: String, member: String) {
        self.group = group
        self.member = member
        role = .standby
        termsLed = 0
        leadershipChanges = 0
    }

    /// Why the member is not ready to take traffic now, or `nil` when it is: only a leader whose
    /// coordinator serves is, so a load balancer that asks `/readyz` routes to it alone.
    public func unreadiness(coordinatorServing: Bool) -> String? {
        let leads = leader.map { "\($0) leads" + (leaderEpoch.map { " at epoch \($0)" } ?? "") } ?? "no leader is known"
        switch role {
        case .standby:
            return "\(member) is a standby: \(leads)"
        case .leader where !coordinatorServing:
            return "\(member) leads but its coordinator is not serving"
        case .leader:
            return nil
        }
    }
}
