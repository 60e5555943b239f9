import Foundation
import Locking
import Logging

/// Runs one member's ``LeaderCampaign`` against etcd: grants and keeps alive its lease,
/// campaigns for the group's leader key, reads that key, and tells its host when it leads.
///
/// The leader key is `/actionbus/<group>/leader`, its value the member's description, attached
/// to the member's lease; the campaign is the transaction "if the key does not exist (its
/// create revision is 0), put it with my lease, else read it". The epoch is the key's create
/// revision, which only grows across leaders.
///
/// The leader key is polled (a range read every `pollInterval`) rather than watched: etcd's
/// watch over the JSON gateway is one long streaming answer, which needs a connection read as
/// it arrives and set up again after every etcd restart or change of endpoint (``PlainHTTP``
/// reads whole answers within a deadline; URLSession on Linux has no streaming `bytes(for:)`);
/// a poll needs none of that, and 250 ms adds little to a failover bounded by a 3 s lease. A
/// graceful handover does not wait for it: a leader that steps down tells its standbys, and
/// each reads the key every `handoverPollInterval` until it is released
/// (``leaderSteppingDown()``).
///
/// Serving is gated by time, not by messages: ``servingEpoch()`` answers from the lease's fence
/// deadline at the moment it is asked, so a host that checks it before each reply never replies
/// after the lease may have expired, even if it has not yet read ``changes``.
///
/// I/O never blocks the campaign: each request runs in its own child task and comes back as an
/// event, and ticks run on their own, so a request hanging on a stopped etcd delays no fence.
package final class LeaderElector: Sendable {
    package struct Configuration: Sendable {
        package var group: String
        /// What the leader key says about its holder (a name and where to reach it).
        package var member: String
        package var campaign: LeaderCampaign.Configuration
        /// How often the leader key is read.
        package var pollInterval: Duration
        /// How often it is read while the leader steps down, and for how long at most.
        package var handoverPollInterval: Duration = .milliseconds(20)
        package var handoverPollLimit: Duration = .seconds(2)
        /// The longest gap between two ticks.
        package var maximumTickInterval: Duration
        /// What else must hold for this member to win (see ``CampaignCondition``).
        package var campaignCondition: CampaignCondition?

        package init(
            group: String, member: String, campaign: LeaderCampaign.Configuration = .init(), pollInterval: Duration = .milliseconds(250),
            maximumTickInterval: Duration = .milliseconds(100), campaignCondition: CampaignCondition? = nil
        ) {
            self.group = group
            self.member = member
            self.campaign = campaign
            self.pollInterval = pollInterval
            self.maximumTickInterval = maximumTickInterval
            self.campaignCondition = campaignCondition
        }

        package var leaderKey: String { Self.leaderKey(group: group) }

        /// Where a group's leader is recorded.
        package static func leaderKey(group: String) -> String { "/actionbus/\(group)/leader" }
    }

    /// What the host hears, in order.
    package enum Change: Equatable, Sendable {
        /// This member leads, at `epoch`: it may serve.
        case leading(epoch: Int64)
        /// This member stopped leading: it must not serve any more.
        case stoppedLeading(epoch: Int64, reason: LeaderCampaign.FenceReason)
        /// Who leads, as read from etcd, changed.
        case leaderSeen(LeaderCampaign.LeaderView)
    }

    package let client: EtcdClient
    package let configuration: Configuration
    let logger: Logger
    let campaign: Locked<LeaderCampaign>
    /// The leadership changes, in order; finished when ``run()`` returns.
    package let changes: AsyncStream<Change>
    let changesContinuation: AsyncStream<Change>.Continuation
    /// The etcd requests the campaign asked for, carried out by ``run()``.
    let requests: AsyncStream<LeaderCampaign.Action>
    let requestsContinuation: AsyncStream<LeaderCampaign.Action>.Continuation
    /// The reads of a leader stepping down, while they run.
    let handoverPoll = Locked<Task<Void, Never>?>(nil)

    package init(client: EtcdClient, configuration: Configuration, logger: Logger = Logger(label: "actionbus.group")) {
        self.client = client
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "group"] = "\(configuration.group)"
        logger[metadataKey: "member"] = "\(configuration.member)"
        self.logger = logger
        campaign = Locked(LeaderCampaign(configuration: configuration.campaign, startingAt: .now))
        (changes, changesContinuation) = AsyncStream.makeStream()
        (requests, requestsContinuation) = AsyncStream.makeStream()
    }

    /// The epoch this member serves at now, if it leads and its lease cannot have expired.
    package func servingEpoch() -> Int64? {
        campaign.withLock { $0.servingEpoch(at: .now) }
    }

    /// Where the campaign stands.
    package var phase: LeaderCampaign.Phase {
        campaign.withLock { $0.phase }
    }

    /// The lease it holds now.
    package var leaseID: Int64? {
        campaign.withLock { $0.leaseID }
    }

    /// The journal made progress: a leader may renew its lease.
    package func reportJournalProgress() {
        handle(.journalProgress)
    }

    /// The journal stalled: a leader stops renewing its lease, so it loses leadership unless the
    /// journal makes progress again before its lease runs out.
    package func reportJournalStalled() {
        handle(.journalStalled)
    }

    /// The leader said it is stepping down: reads the leader key every `handoverPollInterval`
    /// until it names someone else or no one (the campaign then runs at once), for at most
    /// `handoverPollLimit`. A leader that is gone, not stepping down, leaves the key to its lease.
    package func leaderSteppingDown() {
        let stepping: LeaderRecord? = campaign.withLock { campaign in
            guard campaign.phase != .stopped, case let .held(record) = campaign.leaderView else { return nil }
            return record
        }
        guard let stepping, stepping.member != configuration.member else { return }
        let task = Task { [configuration] in
            let until = ContinuousClock.now + configuration.handoverPollLimit
            while !Task.isCancelled, ContinuousClock.now < until {
                await readLeaderKey()
                let stillHeld = campaign.withLock { if case let .held(record) = $0.leaderView { record == stepping } else { false } }
                guard stillHeld else { return }
                try? await Task.sleep(for: configuration.handoverPollInterval)
            }
        }
        handoverPoll.withLock { previous in
            previous?.cancel()
            previous = task
        }
    }

    /// Campaigns until cancelled; then stops serving and revokes its lease (a graceful handover).
    /// Call it once.
    package func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.tickUntilCancelled() }
            group.addTask { await self.pollUntilCancelled() }
            handle(.tick)
            // Ends when run() is cancelled.
            for await request in requests {
                group.addTask { await self.perform(request) }
            }
        }
        handoverPoll.withLock { $0?.cancel() }
        let revokes = handle(.shutdown).compactMap { action -> Int64? in
            if case let .revokeLease(id) = action { id } else { nil }
        }
        // In a task of its own: this one is cancelled, and would cancel the requests.
        let client = client
        await Task {
            for id in revokes { try? await client.revokeLease(id: id) }
        }.value
        requestsContinuation.finish()
        changesContinuation.finish()
    }

    /// Feeds one event to the campaign now and passes its actions on, under the campaign's lock
    /// so that the host hears changes in the order they happened.
    @discardableResult
    func handle(_ event: LeaderCampaign.Event) -> [LeaderCampaign.Action] {
        campaign.withLock { campaign in
            let actions = campaign.handle(event, at: .now)
            for action in actions { dispatch(action) }
            return actions
        }
    }

    private func dispatch(_ action: LeaderCampaign.Action) {
        switch action {
        case let .startServing(epoch):
            logger.info("leading", metadata: ["epoch": "\(epoch)"])
            changesContinuation.yield(.leading(epoch: epoch))
        case let .stopServing(epoch, reason):
            logger.warning("stopped leading", metadata: ["epoch": "\(epoch)", "reason": "\(reason)"])
            changesContinuation.yield(.stoppedLeading(epoch: epoch, reason: reason))
        case let .leaderChanged(view):
            logger.info("leader seen", metadata: ["leader": "\(view)"])
            changesContinuation.yield(.leaderSeen(view))
        case .grantLease, .renewLease, .tryTakeLeadership, .revokeLease:
            requestsContinuation.yield(action)
        }
    }

    /// Ticks at the campaign's next wake-up, and at least every `maximumTickInterval`.
    private func tickUntilCancelled() async {
        let clock = ContinuousClock()
        while !Task.isCancelled {
            let now = clock.now
            let wakeUp = campaign.withLock { $0.nextWakeUp } ?? now + configuration.maximumTickInterval
            // Never a busy loop on a wake-up already past (a renewal held back by a stalled journal).
            let until = min(max(wakeUp, now + .milliseconds(5)), now + configuration.maximumTickInterval)
            do {
                try await clock.sleep(until: until)
            } catch {
                return
            }
            handle(.tick)
        }
    }

    /// Reads the leader key every `pollInterval`.
    private func pollUntilCancelled() async {
        while !Task.isCancelled {
            await readLeaderKey()
            do {
                try await Task.sleep(for: configuration.pollInterval)
            } catch {
                return
            }
        }
    }

    /// Reads the leader key once and feeds what it says to the campaign.
    private func readLeaderKey() async {
        do {
            let read = try await client.range(.key(configuration.leaderKey))
            handle(.leaderObserved(read.first.map(LeaderRecord.init), revision: read.revision))
        } catch {
            logger.debug("leader key not read", metadata: ["error": "\(error)"])
        }
    }
}
