/// What a coordinator expects of its workers, sent in WELCOME: nothing is left to matching
/// configuration files.
package struct WorkerTerms: Sendable, Hashable {
    /// The largest body (a result's output) the coordinator accepts, in bytes.
    package var maxMessageBytes: UInt32
    /// How often the worker heartbeats, in milliseconds.
    package var heartbeatMilliseconds: UInt32
    /// Heartbeat intervals of coordinator silence after which the worker reconnects.
    package var heartbeatLiveness: UInt32
    /// The coordinator's epoch: a group leader's term, 0 outside a group. A worker in a group
    /// refuses a member whose epoch is older than one it has seen: a deposed leader.
    package var epoch: UInt64

    /// Creates terms.
    package init(maxMessageBytes: UInt32, heartbeatMilliseconds: UInt32, heartbeatLiveness: UInt32, epoch: UInt64 = 0) {
        self.maxMessageBytes = maxMessageBytes
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.heartbeatLiveness = heartbeatLiveness
        self.epoch = epoch
    }
}
