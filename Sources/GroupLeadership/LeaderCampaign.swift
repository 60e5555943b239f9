/// One member's part in a group's leader election, as a state machine without I/O or clock:
/// events in (with the time they happen at), actions out. ``LeaderElector`` carries the
/// actions out against etcd and feeds their results back; the tests feed it by hand.
///
/// The member holds an etcd lease and keeps it alive; it campaigns by creating the leader key
/// attached to that lease; it leads while the key is its own. Its phases:
///
/// - **follower**: not leading; holds a lease (or is getting one) and watches the leader key,
///   campaigning when it is vacant;
/// - **candidate**: its campaign transaction is under way;
/// - **leader**: the key is its own and it serves, at the epoch of the key;
/// - **fenced**: it has just stopped leading (or was about to win when its lease ran out); its
///   lease is abandoned and it waits `rejoinDelay` before it takes a new one, so that another
///   member takes over first and its host can rejoin as a standby;
/// - **stopped**: shut down for good.
///
/// The rule it exists for: **a leader stops serving before its lease can have expired.** etcd
/// restarts a lease's time to live when a keepalive reaches it, which is never before the
/// keepalive was sent, so the lease lives at least until `lastRenewalSentAt + ttl`; the leader
/// fences itself `safetyMargin` before that (``fenceDeadline``), whatever happened to the
/// keepalives since. Every event first enforces that deadline for the time it carries, and
/// ``isServing(at:)`` answers from the deadline alone, so a member paused past its deadline
/// (SIGSTOP, a long GC-like stall) is not serving when it wakes, before any event.
///
/// A leader renews its lease only while its journal makes progress (``Event/journalProgress``
/// within `journalProgressTimeout`, no ``Event/journalStalled`` since): a leader whose disk
/// stalled lets its lease run out and so loses leadership.
package struct LeaderCampaign: Sendable {
    package typealias Instant = ContinuousClock.Instant

    package struct Configuration: Equatable, Sendable {
        /// The lease's time to live asked of etcd, in whole seconds (etcd's unit).
        package var leaseTTLSeconds: Int64
        /// How long before the lease can expire the leader stops serving: covers a late tick
        /// and the host's own delay in acting on ``Action/stopServing(epoch:reason:)``.
        package var safetyMargin: Duration
        /// How often the lease is renewed.
        package var renewInterval: Duration
        /// How long after a failed grant or keepalive the next is tried.
        package var retryInterval: Duration
        /// How long a member that stopped leading waits before it takes a new lease.
        package var rejoinDelay: Duration
        /// How long without ``Event/journalProgress`` the journal counts as stalled; nil: the
        /// journal is not watched (only ``Event/journalStalled`` stops renewals).
        package var journalProgressTimeout: Duration?

        /// Renewals every third of the TTL, a member rejoining after one TTL.
        package init(
            leaseTTLSeconds: Int64 = 3, safetyMargin: Duration = .milliseconds(500), renewInterval: Duration? = nil,
            retryInterval: Duration = .milliseconds(250), rejoinDelay: Duration? = nil, journalProgressTimeout: Duration? = nil
        ) {
            precondition(leaseTTLSeconds > 0, "a lease lives at least a second")
            precondition(safetyMargin < .seconds(leaseTTLSeconds), "the safety margin must be shorter than the TTL")
            self.leaseTTLSeconds = leaseTTLSeconds
            self.safetyMargin = safetyMargin
            self.renewInterval = renewInterval ?? .seconds(leaseTTLSeconds) / 3
            self.retryInterval = retryInterval
            self.rejoinDelay = rejoinDelay ?? .seconds(leaseTTLSeconds)
            self.journalProgressTimeout = journalProgressTimeout
        }
    }

    package enum Phase: Equatable, Sendable {
        case follower
        case candidate(leaseID: Int64)
        case leader(epoch: Int64)
        case fenced(until: Instant)
        case stopped
    }

    /// The lease the member holds, and what it knows of its renewals.
    struct HeldLease: Equatable, Sendable {
        let id: Int64
        var ttl: Duration
        /// When the last renewal that etcd answered was sent (for a new lease: when the grant was).
        var lastRenewalSentAt: Instant
        var renewalInFlight = false
        var nextRenewalAt: Instant
    }

    /// What the member last saw of the leader key.
    package enum LeaderView: Equatable, Sendable {
        case unknown
        case vacant
        case held(LeaderRecord)
    }

    package let configuration: Configuration
    package internal(set) var phase: Phase = .follower
    var lease: HeldLease?
    /// Where asking for a lease stands: due at a time, asked and unanswered, or not wanted
    /// (a lease is held, or the member is fenced or stopped). One state, so that a failed grant
    /// can only lead to another one being due.
    enum LeaseGrant: Equatable {
        case due(Instant)
        case asked
        case none
    }

    var grant: LeaseGrant
    package internal(set) var leaderView: LeaderView = .unknown
    /// The highest store revision among what the member has read: older reads are stale.
    var lastSeenRevision: Int64 = 0
    var journalStalled = false
    var lastJournalProgressAt: Instant?
    /// Set by a campaign, cleared by the next read of the leader key: no second campaign on
    /// the read the first was made on.
    var awaitingFreshView = false

    /// A member that will ask for a lease on its first event.
    package init(configuration: Configuration = Configuration(), startingAt now: Instant) {
        self.configuration = configuration
        grant = .due(now)
    }

    /// The epoch it serves at `now`, if it leads and its lease cannot have expired yet.
    package func servingEpoch(at now: Instant) -> Int64? {
        guard case let .leader(epoch) = phase, let deadline = fenceDeadline, now < deadline else { return nil }
        return epoch
    }

    /// Whether it serves at `now` (see ``servingEpoch(at:)``).
    package func isServing(at now: Instant) -> Bool { servingEpoch(at: now) != nil }

    /// When it must stop using its lease: `safetyMargin` before the earliest moment etcd may
    /// let it expire.
    package var fenceDeadline: Instant? {
        lease.map { $0.lastRenewalSentAt + $0.ttl - configuration.safetyMargin }
    }

    /// The id of the lease it holds.
    package var leaseID: Int64? { lease?.id }

    /// A follower with no lease that is neither asking for one nor due to: it would never lead
    /// again. Never true; the simulation checks it after every step.
    package var isStranded: Bool { phase == .follower && lease == nil && grant == .none }

    /// The next time it needs an event (a tick) even if nothing else happens: the fence deadline,
    /// the next renewal, grant, or the end of its fenced wait.
    package var nextWakeUp: Instant? {
        var candidates: [Instant] = []
        if let deadline = fenceDeadline { candidates.append(deadline) }
        if let lease, !lease.renewalInFlight, !journalStalled { candidates.append(lease.nextRenewalAt) }
        if case let .due(at) = grant { candidates.append(at) }
        if case let .fenced(until) = phase { candidates.append(until) }
        return candidates.min()
    }

    /// Whether the journal counts as making progress at `now`.
    func journalHealthy(at now: Instant) -> Bool {
        if journalStalled { return false }
        guard let timeout = configuration.journalProgressTimeout else { return true }
        guard let lastJournalProgressAt else { return false }
        return now - lastJournalProgressAt <= timeout
    }
}
