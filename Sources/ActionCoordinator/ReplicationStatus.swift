/// Where a leader's standbys stand: what admission and `actionbus stats` read.
package struct ReplicationStatus: Equatable, Sendable {
    /// Standbys configured (`--standby`).
    package var configured = 0
    /// Standbys that hold the leader's journal and acknowledge its commits in time.
    package var inSync = 0
    /// Whether the operator chose availability (`--standby-optional`): a lagging standby
    /// leaves the in-sync set and commits stop waiting for it.
    package var standbyOptional = false

    package init(configured: Int = 0, inSync: Int = 0, standbyOptional: Bool = false) {
        self.configured = configured
        self.inSync = inSync
        self.standbyOptional = standbyOptional
    }

    /// Why new requests must be refused `unavailable`, or `nil`: without
    /// `--standby-optional`, every configured standby must be in sync.
    package var refusal: String? {
        guard !standbyOptional, inSync < configured else { return nil }
        return "too few in-sync standbys: \(inSync) of \(configured); accepted requests keep running"
    }
}
