import GroupLeadership
import Testing

/// The election state machine with events fed by hand: no etcd, no clock.
@Suite struct LeaderCampaignTests {
    typealias Action = LeaderCampaign.Action
    let origin = ContinuousClock.now
    let configuration = LeaderCampaign.Configuration(leaseTTLSeconds: 3, safetyMargin: .milliseconds(500))
    let lease = EtcdLease(id: 7, ttlSeconds: 3)

    /// `milliseconds` after the test's origin.
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { origin + .milliseconds(milliseconds) }

    /// A member that got lease 7 (asked for at 0) and saw the leader key vacant at revision 1.
    func candidate() -> LeaderCampaign {
        var campaign = LeaderCampaign(configuration: configuration, startingAt: at(0))
        #expect(campaign.handle(.tick, at: at(0)) == [.grantLease(ttlSeconds: 3, requestedAt: at(0))])
        #expect(campaign.handle(.leaseGranted(lease, requestedAt: at(0)), at: at(20)) == [])
        #expect(campaign.handle(.leaderObserved(nil, revision: 1), at: at(30)) == [.leaderChanged(.vacant), .tryTakeLeadership(leaseID: 7)])
        return campaign
    }

    /// The member of ``candidate()``, leading at epoch 5 since 40 ms.
    func leader() -> LeaderCampaign {
        var campaign = candidate()
        #expect(campaign.handle(.campaignWon(leaseID: 7, epoch: 5), at: at(40)) == [.startServing(epoch: 5)])
        return campaign
    }

    /// Found in review: a failed grant left nothing due, so the member never asked again and
    /// the group could stay leaderless for good.
    @Test func aFailedLeaseGrantIsAskedForAgainAfterTheRetryInterval() {
        var campaign = LeaderCampaign(configuration: configuration, startingAt: at(0))
        #expect(campaign.handle(.tick, at: at(0)) == [.grantLease(ttlSeconds: 3, requestedAt: at(0))])
        #expect(campaign.handle(.leaseGrantFailed, at: at(10)) == [])
        #expect(!campaign.isStranded)
        let retry = at(10) + configuration.retryInterval
        #expect(campaign.nextWakeUp == retry)
        #expect(campaign.handle(.tick, at: retry) == [.grantLease(ttlSeconds: 3, requestedAt: retry)])
    }

    @Test func asksForALeaseThenCampaignsOnlyOnAVacantKey() {
        var campaign = LeaderCampaign(configuration: configuration, startingAt: at(0))
        #expect(campaign.handle(.tick, at: at(0)) == [.grantLease(ttlSeconds: 3, requestedAt: at(0))])
        // No second grant while the first is under way.
        #expect(campaign.handle(.tick, at: at(10)) == [])
        #expect(campaign.handle(.leaseGranted(lease, requestedAt: at(0)), at: at(20)) == [])
        // The key's state is unknown until it is read: no campaign yet.
        #expect(campaign.handle(.tick, at: at(25)) == [])
        let other = LeaderRecord(member: "b", leaseID: 9, epoch: 3)
        #expect(campaign.handle(.leaderObserved(other, revision: 3), at: at(30)) == [.leaderChanged(.held(other))])
        #expect(campaign.phase == .follower)
        #expect(campaign.handle(.leaderObserved(nil, revision: 4), at: at(280)) == [.leaderChanged(.vacant), .tryTakeLeadership(leaseID: 7)])
        #expect(campaign.phase == .candidate(leaseID: 7))
    }

    @Test func winsServesAndKeepsItsLeaseAlive() {
        var campaign = leader()
        #expect(campaign.servingEpoch(at: at(41)) == 5)
        // Renewals every third of the TTL, counted from when the grant was asked for.
        #expect(campaign.handle(.tick, at: at(999)) == [])
        #expect(campaign.handle(.tick, at: at(1000)) == [.renewLease(id: 7, sentAt: at(1000))])
        #expect(campaign.handle(.tick, at: at(1500)) == [], "one keepalive at a time")
        #expect(campaign.handle(.keepAliveSucceeded(lease, sentAt: at(1000)), at: at(1100)) == [])
        #expect(campaign.fenceDeadline == at(3500))
        #expect(campaign.handle(.tick, at: at(2000)) == [.renewLease(id: 7, sentAt: at(2000))])
    }

    @Test func aLeaderWhoseKeepalivesFailFencesBeforeItsLeaseCanExpire() {
        var campaign = leader()
        #expect(campaign.handle(.tick, at: at(1000)) == [.renewLease(id: 7, sentAt: at(1000))])
        #expect(campaign.handle(.keepAliveFailed(leaseID: 7), at: at(2000)) == [])
        #expect(campaign.handle(.tick, at: at(2250)) == [.renewLease(id: 7, sentAt: at(2250))])
        // The lease was granted (asked for) at 0: it may expire at 3000; the leader stops at 2500.
        #expect(campaign.fenceDeadline == at(2500))
        #expect(campaign.isServing(at: at(2499)))
        #expect(!campaign.isServing(at: at(2500)))
        #expect(campaign.handle(.tick, at: at(2500)) == [.stopServing(epoch: 5, reason: .leaseMayExpire), .revokeLease(id: 7)])
        #expect(campaign.phase == .fenced(until: at(5500)))
        // A keepalive answered after the fence changes nothing: the lease was given up.
        #expect(campaign.handle(.keepAliveSucceeded(lease, sentAt: at(2250)), at: at(2600)) == [])
        #expect(!campaign.isServing(at: at(2600)))
        // After one TTL it takes a new lease, as a follower.
        #expect(campaign.handle(.tick, at: at(5499)) == [])
        #expect(campaign.handle(.tick, at: at(5500)) == [.grantLease(ttlSeconds: 3, requestedAt: at(5500))])
        #expect(campaign.phase == .follower)
    }

    @Test func renewalCountsFromWhenTheKeepaliveWasSentNotAnswered() {
        var campaign = leader()
        _ = campaign.handle(.tick, at: at(1000))
        // Answered 900 ms after it was sent: the lease may have been renewed as early as 1000.
        _ = campaign.handle(.keepAliveSucceeded(lease, sentAt: at(1000)), at: at(1900))
        #expect(campaign.fenceDeadline == at(3500))
        // An older keepalive answered late does not move the deadline back or forth.
        _ = campaign.handle(.keepAliveSucceeded(lease, sentAt: at(500)), at: at(2000))
        #expect(campaign.fenceDeadline == at(3500))
    }

    @Test func aLeaderWhoseJournalStalledStopsRenewingAndLosesLeadership() {
        var campaign = leader()
        #expect(campaign.handle(.journalStalled, at: at(900)) == [])
        #expect(campaign.handle(.tick, at: at(1000)) == [], "no renewal while the journal is stalled")
        #expect(campaign.handle(.tick, at: at(2400)) == [])
        #expect(campaign.handle(.tick, at: at(2500)) == [.stopServing(epoch: 5, reason: .leaseMayExpire), .revokeLease(id: 7)])
    }

    @Test func aJournalThatResumesInTimeKeepsTheLeadership() {
        var campaign = leader()
        _ = campaign.handle(.journalStalled, at: at(900))
        #expect(campaign.handle(.tick, at: at(1200)) == [])
        #expect(campaign.handle(.journalProgress, at: at(1300)) == [.renewLease(id: 7, sentAt: at(1300))])
        _ = campaign.handle(.keepAliveSucceeded(lease, sentAt: at(1300)), at: at(1350))
        #expect(campaign.servingEpoch(at: at(3000)) == 5)
    }

    @Test func aWatchedJournalWithoutProgressStopsRenewals() {
        var campaign = LeaderCampaign(
            configuration: .init(leaseTTLSeconds: 3, journalProgressTimeout: .milliseconds(800)), startingAt: at(0)
        )
        _ = campaign.handle(.journalProgress, at: at(0))
        _ = campaign.handle(.leaseGranted(lease, requestedAt: at(0)), at: at(10))
        #expect(campaign.handle(.leaderObserved(nil, revision: 1), at: at(20)).contains(.tryTakeLeadership(leaseID: 7)))
        #expect(campaign.handle(.campaignWon(leaseID: 7, epoch: 2), at: at(30)) == [.startServing(epoch: 2)])
        // Last progress at 0, over 800 ms ago at 1000: no renewal.
        #expect(campaign.handle(.tick, at: at(1000)) == [])
        #expect(campaign.handle(.journalProgress, at: at(1100)) == [.renewLease(id: 7, sentAt: at(1100))])
    }

    @Test func aLeaderWhoseKeyIsAnotherMembersIsDeposed() {
        var campaign = leader()
        // A read sent before the win, answered after it: older than the epoch, ignored.
        #expect(campaign.handle(.leaderObserved(nil, revision: 4), at: at(60)) == [])
        #expect(campaign.isServing(at: at(60)))
        // Its own key read back: nothing changes.
        let own = LeaderRecord(member: "a", leaseID: 7, epoch: 5)
        #expect(campaign.handle(.leaderObserved(own, revision: 5), at: at(300)) == [.leaderChanged(.held(own))])
        #expect(campaign.isServing(at: at(300)))
        let other = LeaderRecord(member: "b", leaseID: 9, epoch: 8)
        #expect(
            campaign.handle(.leaderObserved(other, revision: 8), at: at(600))
                == [.stopServing(epoch: 5, reason: .deposed(.held(other))), .revokeLease(id: 7), .leaderChanged(.held(other))]
        )
        #expect(!campaign.isServing(at: at(600)))
    }

    @Test func aLeaderWhoseLeaseIsGoneStopsAtOnce() {
        var campaign = leader()
        _ = campaign.handle(.tick, at: at(1000))
        #expect(campaign.handle(.leaseNotFound(leaseID: 7), at: at(1010)) == [.stopServing(epoch: 5, reason: .leaseLost)])
        #expect(campaign.phase == .fenced(until: at(4010)))
    }

    @Test func aLostCampaignFollowsTheLeaderItFound() {
        var campaign = candidate()
        let other = LeaderRecord(member: "b", leaseID: 9, epoch: 3)
        #expect(campaign.handle(.campaignLost(leaseID: 7, currentLeader: other, revision: 3), at: at(50)) == [.leaderChanged(.held(other))])
        #expect(campaign.phase == .follower)
        // A follower keeps its lease alive, ready to campaign.
        #expect(campaign.handle(.tick, at: at(1000)) == [.renewLease(id: 7, sentAt: at(1000))])
    }

    @Test func aCampaignLostWithoutALeaderWaitsForTheNextRead() {
        var campaign = candidate()
        // Not in sync (or the in-sync set changed under the transaction): no immediate retry.
        #expect(campaign.handle(.campaignLost(leaseID: 7, currentLeader: nil, revision: 1), at: at(50)) == [])
        #expect(campaign.handle(.tick, at: at(60)) == [])
        #expect(campaign.handle(.leaderObserved(nil, revision: 1), at: at(300)) == [.tryTakeLeadership(leaseID: 7)])
        #expect(campaign.handle(.campaignFailed(leaseID: 7), at: at(1300)).isEmpty == false, "the renewal due at 1000 goes out")
        #expect(campaign.phase == .follower)
    }

    @Test func aWinAnsweredAfterTheLeaseMayHaveExpiredIsNotServed() {
        var campaign = candidate()
        #expect(campaign.handle(.campaignWon(leaseID: 7, epoch: 5), at: at(2600)) == [.revokeLease(id: 7)])
        #expect(!campaign.isServing(at: at(2600)))
        #expect(campaign.phase == .fenced(until: at(5600)))
    }

    @Test func aMemberPausedPastItsDeadlineIsNotServingWhenItWakes() {
        var campaign = leader()
        _ = campaign.handle(.tick, at: at(1000))
        // Paused (SIGSTOP) from 1001 to 10000: before any event it already does not serve.
        #expect(!campaign.isServing(at: at(10_000)))
        // Its first event, the keepalive's answer that was waiting, fences it first.
        #expect(
            campaign.handle(.keepAliveSucceeded(lease, sentAt: at(1000)), at: at(10_000))
                == [.stopServing(epoch: 5, reason: .leaseMayExpire), .revokeLease(id: 7)]
        )
    }

    @Test func aFollowerWhoseLeaseMayHaveExpiredTakesANewOne() {
        var campaign = candidate()
        let other = LeaderRecord(member: "b", leaseID: 9, epoch: 3)
        _ = campaign.handle(.campaignLost(leaseID: 7, currentLeader: other, revision: 3), at: at(50))
        _ = campaign.handle(.tick, at: at(1000))
        _ = campaign.handle(.keepAliveFailed(leaseID: 7), at: at(2000))
        #expect(campaign.handle(.tick, at: at(2500)).contains(.revokeLease(id: 7)))
        #expect(campaign.leaseID == nil)
        #expect(campaign.handle(.tick, at: at(2750)) == [.grantLease(ttlSeconds: 3, requestedAt: at(2750))])
    }

    @Test func aGrantAnsweredAfterShutdownIsGivenBack() {
        var campaign = LeaderCampaign(configuration: configuration, startingAt: at(0))
        _ = campaign.handle(.tick, at: at(0))
        #expect(campaign.handle(.shutdown, at: at(10)) == [])
        #expect(campaign.handle(.leaseGranted(lease, requestedAt: at(0)), at: at(20)) == [.revokeLease(id: 7)])
        #expect(campaign.phase == .stopped)
    }

    @Test func shutdownStopsServingAndRevokes() {
        var campaign = leader()
        #expect(campaign.handle(.shutdown, at: at(100)) == [.stopServing(epoch: 5, reason: .shutdown), .revokeLease(id: 7)])
        #expect(campaign.handle(.tick, at: at(5000)) == [])
        #expect(campaign.nextWakeUp == nil)
    }

    @Test func wakesUpForTheFenceDeadlineAndRenewals() {
        var campaign = leader()
        #expect(campaign.nextWakeUp == at(1000))
        _ = campaign.handle(.tick, at: at(1000))
        // The renewal is under way: the next thing due is the fence deadline.
        #expect(campaign.nextWakeUp == at(2500))
    }
}
