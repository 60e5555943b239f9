import ActionBusTestSupport
import GroupLeadership

/// Several members' ``LeaderCampaign``s against a simulated etcd, over a simulated network that
/// delays, loses requests and loses answers (of requests etcd carried out), with members paused
/// (SIGSTOP-like) and journals stalling, all in simulated time drawn from one seed.
///
/// After every step it checks, at that instant, what must always hold: a member that serves
/// holds a lease that etcd still has and the leader key etcd holds is its own, at its epoch (so
/// at most one member serves); a member whose journal has been stalled for a whole TTL does not
/// serve; epochs of successive leaderships only grow.
struct ElectionSimulation {
    typealias Instant = ContinuousClock.Instant

    /// etcd as the campaign sees it: leases that expire, and the leader key attached to one.
    struct SimulatedEtcd {
        var revision: Int64 = 1
        var leaseExpiry: [Int64: Instant] = [:]
        var leaseTTL: [Int64: Duration] = [:]
        var nextLeaseID: Int64 = 100
        var leaderKey: LeaderRecord?

        /// Lets every lease due by `now` expire, with the leader key if attached to one.
        mutating func expire(at now: Instant) {
            for (id, expiry) in leaseExpiry where expiry <= now { revoke(id) }
        }

        mutating func revoke(_ id: Int64) {
            guard leaseExpiry.removeValue(forKey: id) != nil else { return }
            if leaderKey?.leaseID == id {
                leaderKey = nil
                revision += 1
            }
        }

        func isAlive(_ id: Int64, at now: Instant) -> Bool {
            leaseExpiry[id].map { $0 > now } ?? false
        }
    }

    /// One request under way and what its member will hear.
    enum Delivery {
        case request(member: Int, action: LeaderCampaign.Action)
        case event(member: Int, LeaderCampaign.Event)
        case poll(member: Int)
        case journal(member: Int, stalled: Bool)
        case pause(member: Int, duration: Duration)
    }

    struct Member {
        var campaign: LeaderCampaign
        var pausedUntil: Instant
        var stalledSince: Instant?
    }

    let ttl: Duration = .seconds(3)
    let requestTimeout: Duration = .seconds(1)
    var random: SeededRandom
    var now: Instant
    var etcd = SimulatedEtcd()
    var members: [Member] = []
    /// What happens next, by time then by order of scheduling.
    var agenda: [(at: Instant, order: Int, delivery: Delivery)] = []
    var scheduled = 0
    var lastStartedEpoch: Int64 = 0
    var leaderships = 0
    var violations: [String] = []

    init(members count: Int, random: SeededRandom) {
        self.random = random
        now = ContinuousClock.now
        let configuration = LeaderCampaign.Configuration(leaseTTLSeconds: 3, safetyMargin: .milliseconds(500))
        for index in 0..<count {
            members.append(Member(campaign: LeaderCampaign(configuration: configuration, startingAt: now), pausedUntil: now))
            schedule(.event(member: index, .tick), after: .zero)
            schedule(.poll(member: index), after: .milliseconds(Int64(index) * 50))
        }
    }

    mutating func schedule(_ delivery: Delivery, after delay: Duration) {
        scheduled += 1
        agenda.append((now + delay, scheduled, delivery))
    }

    mutating func milliseconds(_ range: ClosedRange<Int64>) -> Duration {
        .milliseconds(Int64.random(in: range, using: &random))
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    /// Runs until `duration` of simulated time has passed or an invariant breaks (``violations``).
    mutating func run(for duration: Duration) {
        let end = now + duration
        while now < end, violations.isEmpty {
            // Faults arrive at random: a pause, a journal stall or recovery.
            if chance(0.004) {
                schedule(.pause(member: Int.random(in: 0..<members.count, using: &random), duration: milliseconds(200...5_000)), after: .zero)
            }
            if chance(0.006) {
                schedule(.journal(member: Int.random(in: 0..<members.count, using: &random), stalled: chance(0.5)), after: .zero)
            }
            guard let next = agenda.indices.min(by: { (agenda[$0].at, agenda[$0].order) < (agenda[$1].at, agenda[$1].order) }) else { break }
            let (at, _, delivery) = agenda.remove(at: next)
            now = max(now, at)
            deliver(delivery)
            check()
        }
    }

    mutating func deliver(_ delivery: Delivery) {
        switch delivery {
        case let .event(member, event):
            // A paused member hears nothing until it resumes; what was due waits.
            guard members[member].pausedUntil <= now else {
                scheduled += 1
                agenda.append((members[member].pausedUntil, scheduled, delivery))
                return
            }
            handle(event, member: member)
            if case .tick = event { schedule(.event(member: member, .tick), after: milliseconds(10...150)) }
        case let .request(member, action):
            etcdReceives(action, from: member)
        case let .poll(member):
            etcd.expire(at: now)
            let leader = etcd.leaderKey
            let revision = etcd.revision
            answer(member: member, with: .leaderObserved(leader, revision: revision), failure: nil)
            schedule(.poll(member: member), after: .milliseconds(250))
        case let .journal(member, stalled):
            if stalled, members[member].stalledSince == nil { members[member].stalledSince = now }
            if !stalled { members[member].stalledSince = nil }
            handle(stalled ? .journalStalled : .journalProgress, member: member)
        case let .pause(member, duration):
            members[member].pausedUntil = max(members[member].pausedUntil, now + duration)
        }
    }

    mutating func handle(_ event: LeaderCampaign.Event, member: Int) {
        let actions = members[member].campaign.handle(event, at: now)
        for action in actions {
            switch action {
            case let .startServing(epoch):
                if epoch <= lastStartedEpoch { violations.append("member \(member) started serving at epoch \(epoch) after epoch \(lastStartedEpoch)") }
                lastStartedEpoch = max(lastStartedEpoch, epoch)
                leaderships += 1
            case .stopServing, .leaderChanged:
                break
            case .grantLease, .renewLease, .tryTakeLeadership, .revokeLease:
                // Lost on the way (the member hears of it at its timeout), or etcd gets it later.
                if chance(0.08) {
                    schedule(.event(member: member, failure(of: action)), after: requestTimeout)
                } else {
                    schedule(.request(member: member, action: action), after: milliseconds(0...300))
                }
            }
        }
    }

    /// What a member hears when its request got no answer.
    func failure(of action: LeaderCampaign.Action) -> LeaderCampaign.Event {
        switch action {
        case .grantLease: .leaseGrantFailed
        case let .renewLease(id, _): .keepAliveFailed(leaseID: id)
        case let .tryTakeLeadership(leaseID): .campaignFailed(leaseID: leaseID)
        default: .tick
        }
    }

    /// etcd carries the request out at `now` and answers; the answer may be lost.
    mutating func etcdReceives(_ action: LeaderCampaign.Action, from member: Int) {
        etcd.expire(at: now)
        switch action {
        case let .grantLease(ttlSeconds, requestedAt):
            etcd.nextLeaseID += 1
            let id = etcd.nextLeaseID
            etcd.leaseExpiry[id] = now + .seconds(ttlSeconds)
            etcd.leaseTTL[id] = .seconds(ttlSeconds)
            answer(member: member, with: .leaseGranted(EtcdLease(id: id, ttlSeconds: ttlSeconds), requestedAt: requestedAt), failure: .leaseGrantFailed)
        case let .renewLease(id, sentAt):
            guard etcd.isAlive(id, at: now), let ttl = etcd.leaseTTL[id] else {
                answer(member: member, with: .leaseNotFound(leaseID: id), failure: .keepAliveFailed(leaseID: id))
                return
            }
            etcd.leaseExpiry[id] = now + ttl
            answer(member: member, with: .keepAliveSucceeded(EtcdLease(id: id, ttlSeconds: 3), sentAt: sentAt), failure: .keepAliveFailed(leaseID: id))
        case let .tryTakeLeadership(leaseID):
            guard etcd.isAlive(leaseID, at: now) else {
                answer(member: member, with: .leaseNotFound(leaseID: leaseID), failure: .campaignFailed(leaseID: leaseID))
                return
            }
            if let holder = etcd.leaderKey {
                // A retried transaction finds the key its first attempt created: the driver reads it as a win.
                let event: LeaderCampaign.Event = holder.leaseID == leaseID
                    ? .campaignWon(leaseID: leaseID, epoch: holder.epoch)
                    : .campaignLost(leaseID: leaseID, currentLeader: holder, revision: etcd.revision)
                answer(member: member, with: event, failure: .campaignFailed(leaseID: leaseID))
            } else {
                etcd.revision += 1
                etcd.leaderKey = LeaderRecord(member: "m\(member)", leaseID: leaseID, epoch: etcd.revision)
                answer(member: member, with: .campaignWon(leaseID: leaseID, epoch: etcd.revision), failure: .campaignFailed(leaseID: leaseID))
            }
        case let .revokeLease(id):
            etcd.revoke(id)
        case .startServing, .stopServing, .leaderChanged:
            break
        }
    }

    /// Sends `event` back to `member` after a network delay, or (lost) `failure` at its timeout.
    mutating func answer(member: Int, with event: LeaderCampaign.Event, failure: LeaderCampaign.Event?) {
        if let failure, chance(0.08) {
            schedule(.event(member: member, failure), after: requestTimeout)
        } else {
            schedule(.event(member: member, event), after: milliseconds(0...300))
        }
    }

    /// The invariants, at `now`.
    mutating func check() {
        etcd.expire(at: now)
        for (index, member) in members.enumerated() {
            if member.campaign.isStranded {
                violations.append("member \(index) holds no lease and will never ask for one")
            }
            guard let epoch = member.campaign.servingEpoch(at: now) else { continue }
            guard let leaseID = member.campaign.leaseID, etcd.isAlive(leaseID, at: now) else {
                violations.append("member \(index) serves epoch \(epoch) at a moment its lease may have expired")
                continue
            }
            if etcd.leaderKey?.leaseID != leaseID || etcd.leaderKey?.epoch != epoch {
                violations.append("member \(index) serves epoch \(epoch) but etcd's leader key is \(String(describing: etcd.leaderKey))")
            }
            if let stalledSince = member.stalledSince, now - stalledSince >= ttl {
                violations.append("member \(index) serves with its journal stalled since \(now - stalledSince)")
            }
        }
    }
}
