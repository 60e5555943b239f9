extension LeaderCampaign {
    /// What happens to the member: the results of the actions it asked for, what it reads of
    /// the leader key, its journal's health, and ticks.
    package enum Event: Equatable, Sendable {
        /// Time passes (the driver ticks at ``nextWakeUp`` at the latest).
        case tick
        /// etcd granted a lease asked for at `requestedAt` (the `requestedAt` of the action).
        case leaseGranted(EtcdLease, requestedAt: Instant)
        case leaseGrantFailed
        /// etcd renewed the lease with a keepalive sent at `sentAt` (the `sentAt` of the action).
        case keepAliveSucceeded(EtcdLease, sentAt: Instant)
        /// A keepalive got no answer (etcd unreachable, timed out): the lease may live on.
        case keepAliveFailed(leaseID: Int64)
        /// etcd says the lease is gone (expired or revoked).
        case leaseNotFound(leaseID: Int64)
        /// The campaign transaction created the leader key: leadership at `epoch`, the key's
        /// create revision.
        case campaignWon(leaseID: Int64, epoch: Int64)
        /// The campaign transaction found the key held, `currentLeader` as read by the
        /// transaction at store revision `revision`; or nil: the member may not win now (not in
        /// sync, or the in-sync set changed under the transaction).
        case campaignLost(leaseID: Int64, currentLeader: LeaderRecord?, revision: Int64)
        /// The campaign transaction got no answer.
        case campaignFailed(leaseID: Int64)
        /// A read of the leader key at store revision `revision` found it held by `leader`,
        /// or vacant.
        case leaderObserved(LeaderRecord?, revision: Int64)
        /// The journal made progress (a sync completed, or it is idle with nothing pending).
        case journalProgress
        /// The journal has stalled: no renewal until it makes progress again.
        case journalStalled
        /// The member is shutting down: it stops serving and gives its lease back.
        case shutdown
    }

    /// What the member asks its driver to do, in order.
    package enum Action: Equatable, Sendable {
        /// Ask etcd for a lease; report ``Event/leaseGranted(_:requestedAt:)`` with this instant.
        case grantLease(ttlSeconds: Int64, requestedAt: Instant)
        /// Send one keepalive; report ``Event/keepAliveSucceeded(_:sentAt:)`` with this instant.
        case renewLease(id: Int64, sentAt: Instant)
        /// Run the campaign transaction with this lease.
        case tryTakeLeadership(leaseID: Int64)
        /// The host may serve from now on, at `epoch`.
        case startServing(epoch: Int64)
        /// The host must stop serving at once.
        case stopServing(epoch: Int64, reason: FenceReason)
        /// Give the lease back (best effort: unanswered, it expires on its own).
        case revokeLease(id: Int64)
        /// Who leads, as the member now sees it, changed (for the host's reports).
        case leaderChanged(LeaderView)
    }

    /// Why a leader stopped serving.
    package enum FenceReason: Equatable, Sendable {
        /// No renewal since long enough that the lease may expire soon.
        case leaseMayExpire
        /// etcd says the lease is gone.
        case leaseLost
        /// The leader key is no longer this member's (another leader, or deleted).
        case deposed(LeaderView)
        case shutdown
    }

    /// Handles one event happening at `now`; returns the actions to carry out, in order.
    package mutating func handle(_ event: Event, at now: Instant) -> [Action] {
        var actions: [Action] = []
        enforceDeadlines(at: now, into: &actions)
        switch event {
        case .tick:
            break
        case let .leaseGranted(granted, requestedAt):
            leaseGranted(granted, requestedAt: requestedAt, at: now, into: &actions)
        case .leaseGrantFailed:
            if grant == .asked { grant = .due(now + configuration.retryInterval) }
        case let .keepAliveSucceeded(renewed, sentAt):
            keepAliveSucceeded(renewed, sentAt: sentAt)
        case let .keepAliveFailed(leaseID):
            if var held = lease, held.id == leaseID {
                held.renewalInFlight = false
                held.nextRenewalAt = now + configuration.retryInterval
                lease = held
            }
        case let .leaseNotFound(leaseID):
            if lease?.id == leaseID { loseLease(reason: .leaseLost, at: now, into: &actions) }
        case let .campaignWon(leaseID, epoch):
            campaignWon(leaseID: leaseID, epoch: epoch, at: now, into: &actions)
        case let .campaignLost(leaseID, currentLeader, revision):
            guard phase == .candidate(leaseID: leaseID) else { break }
            phase = .follower
            if let currentLeader { observe(currentLeader, revision: revision, at: now, into: &actions) }
        case let .campaignFailed(leaseID):
            if phase == .candidate(leaseID: leaseID) { phase = .follower }
        case let .leaderObserved(leader, revision):
            observe(leader, revision: revision, at: now, into: &actions)
        case .journalProgress:
            journalStalled = false
            lastJournalProgressAt = now
        case .journalStalled:
            journalStalled = true
        case .shutdown:
            shutDown(into: &actions)
        }
        step(at: now, into: &actions)
        return actions
    }

    /// Fences a leader (and gives up a candidate's campaign) whose lease may expire at `now`;
    /// lets a follower's lease go at the same point; ends a fenced wait.
    private mutating func enforceDeadlines(at now: Instant, into actions: inout [Action]) {
        if let deadline = fenceDeadline, now >= deadline {
            loseLease(reason: .leaseMayExpire, at: now, into: &actions)
        }
        if case let .fenced(until) = phase, now >= until {
            phase = .follower
            grant = .due(now)
        }
    }

    /// What the member does on its own at `now`: ask for a lease, renew it, campaign.
    private mutating func step(at now: Instant, into actions: inout [Action]) {
        switch phase {
        case .stopped, .fenced:
            return
        case .follower, .candidate, .leader:
            break
        }
        if lease == nil, case let .due(at) = grant, now >= at {
            grant = .asked
            actions.append(.grantLease(ttlSeconds: configuration.leaseTTLSeconds, requestedAt: now))
        }
        guard let held = lease else { return }
        // A follower keeps its lease alive whatever its journal does (it must be ready to
        // campaign); a leader or candidate only while its journal makes progress.
        let renewalAllowed = phase == .follower || journalHealthy(at: now)
        if !held.renewalInFlight, now >= held.nextRenewalAt, renewalAllowed {
            lease?.renewalInFlight = true
            actions.append(.renewLease(id: held.id, sentAt: now))
        }
        // Campaigns only on a fresh read of a vacant key: a lost or failed campaign waits for
        // the next read, which paces the retries.
        if phase == .follower, leaderView == .vacant, !awaitingFreshView, journalHealthy(at: now) {
            phase = .candidate(leaseID: held.id)
            awaitingFreshView = true
            actions.append(.tryTakeLeadership(leaseID: held.id))
        }
    }

    private mutating func leaseGranted(_ granted: EtcdLease, requestedAt: Instant, at now: Instant, into actions: inout [Action]) {
        grant = .none
        guard lease == nil, phase == .follower else {
            // Asked for before the member was fenced or stopped: not wanted any more.
            actions.append(.revokeLease(id: granted.id))
            return
        }
        lease = HeldLease(
            id: granted.id, ttl: granted.ttl, lastRenewalSentAt: requestedAt, nextRenewalAt: requestedAt + configuration.renewInterval
        )
        // Granted so late that it may be gone already: give it back and ask again.
        if let deadline = fenceDeadline, now >= deadline {
            loseLease(reason: .leaseMayExpire, at: now, into: &actions)
        }
    }

    private mutating func keepAliveSucceeded(_ renewed: EtcdLease, sentAt: Instant) {
        guard var held = lease, held.id == renewed.id else { return }
        held.renewalInFlight = false
        // Answers may come back out of order: the latest sending instant counts.
        if sentAt > held.lastRenewalSentAt {
            held.lastRenewalSentAt = sentAt
            held.ttl = renewed.ttl
        }
        held.nextRenewalAt = held.lastRenewalSentAt + configuration.renewInterval
        lease = held
    }

    private mutating func campaignWon(leaseID: Int64, epoch: Int64, at now: Instant, into actions: inout [Action]) {
        guard phase == .candidate(leaseID: leaseID), let held = lease, held.id == leaseID else {
            // A result for a lease given up meanwhile: its key goes with that lease's revoke.
            return
        }
        lastSeenRevision = max(lastSeenRevision, epoch)
        phase = .leader(epoch: epoch)
        actions.append(.startServing(epoch: epoch))
    }

    /// Takes in a read of the leader key: a leader whose key is no longer its own is deposed; a
    /// follower campaigns (in ``step(at:into:)``) when the key is vacant.
    private mutating func observe(_ leader: LeaderRecord?, revision: Int64, at now: Instant, into actions: inout [Action]) {
        // A read older than what the member already knows (a poll sent before it won) is stale.
        guard revision >= lastSeenRevision else { return }
        lastSeenRevision = revision
        awaitingFreshView = false
        let view: LeaderView = leader.map { .held($0) } ?? .vacant
        if case let .leader(epoch) = phase, leader?.epoch != epoch || leader?.leaseID != lease?.id {
            loseLease(reason: .deposed(view), at: now, into: &actions)
        }
        if view != leaderView {
            leaderView = view
            actions.append(.leaderChanged(view))
        }
    }

    /// Gives up the held lease: a leader stops serving, a leader or candidate is fenced for
    /// `rejoinDelay`, a follower asks for a new lease (after `retryInterval`).
    private mutating func loseLease(reason: FenceReason, at now: Instant, into actions: inout [Action]) {
        guard let held = lease else { return }
        lease = nil
        switch phase {
        case let .leader(epoch):
            actions.append(.stopServing(epoch: epoch, reason: reason))
            phase = .fenced(until: now + configuration.rejoinDelay)
        case .candidate:
            phase = .fenced(until: now + configuration.rejoinDelay)
        case .follower, .fenced, .stopped:
            grant = .due(now + configuration.retryInterval)
        }
        if reason != .leaseLost { actions.append(.revokeLease(id: held.id)) }
    }

    private mutating func shutDown(into actions: inout [Action]) {
        if case let .leader(epoch) = phase { actions.append(.stopServing(epoch: epoch, reason: .shutdown)) }
        if let held = lease { actions.append(.revokeLease(id: held.id)) }
        lease = nil
        grant = .none
        phase = .stopped
    }
}
