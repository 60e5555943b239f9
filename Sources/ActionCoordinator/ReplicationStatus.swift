/// Where a leader's standbys stand: what admission and `actionbus stats` read.
package struct ReplicationStatus: Equatable, Sendable {
    /// Standbys configured (`--standby`, or the other members of a group).
    package var configured = 0
    /// Standbys that hold the leader's journal and acknowledge its commits in time.
    package var inSync = 0
    /// In-sync standbys needed to accept new requests: every configured one by default, none
    /// with `--standby-optional`, a group's minimum in a group.
    package var required = 0

    package init(configured: Int = 0, inSync: Int = 0, required: Int = 0) {
        self.configured = configured
        self.inSync = inSync
        self.required = required
    }

    /// Why new requests must be refused `unavailable`, or `nil`.
    package var refusal: String? {
        guard inSync < required else { return nil }
        return "too few in-sync standbys: \(inSync) of \(configured), \(required) needed; accepted requests keep running"
    }
}
