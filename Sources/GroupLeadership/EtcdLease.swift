/// A lease etcd granted: its id and its time to live in whole seconds, as etcd set it (at least
/// what was asked, and never below etcd's minimum).
package struct EtcdLease: Equatable, Sendable {
    package let id: Int64
    package let ttlSeconds: Int64

    package init(id: Int64, ttlSeconds: Int64) {
        self.id = id
        self.ttlSeconds = ttlSeconds
    }

    /// The time to live as a duration.
    package var ttl: Duration { .seconds(ttlSeconds) }
}
