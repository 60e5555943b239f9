import ActionBusTestSupport
import Foundation
import GroupLeadership
import Testing

extension EtcdTests {
    /// ``LeaderElector``s of one group against a real etcd: one leader, handovers at growing
    /// epochs, a leader that fences itself before its lease can expire, an etcd restart.
    @Suite struct Elector {
        static let group = "g"
        static let leaderKey = LeaderElector.Configuration.leaderKey(group: group)

        func start(
            _ member: String, on etcd: EtcdServer, condition: CampaignCondition? = nil, pollInterval: Duration = .milliseconds(250)
        ) -> RunningElector {
            let configuration = LeaderElector.Configuration(
                group: Self.group, member: member, pollInterval: pollInterval, campaignCondition: condition
            )
            return RunningElector(LeaderElector(client: EtcdClient(endpoints: [etcd.endpoint]), configuration: configuration))
        }

        /// Waits until `condition` holds; meanwhile records an issue whenever more than one serves.
        func waitOneLeaderAtMost(
            _ electors: [RunningElector], timeout: Duration = .seconds(15), _ condition: () async throws -> Bool
        ) async rethrows -> Bool {
            try await eventually(timeout: timeout) {
                let serving = electors.filter { $0.elector.servingEpoch() != nil }
                if serving.count > 1 {
                    Issue.record("two leaders at once: \(serving.map(\.elector.configuration.member))")
                }
                return try await condition()
            }
        }

        /// "a" leading (since `first`), then "b" started and following it.
        func startLeaderAndFollower(on etcd: EtcdServer) async throws -> (a: RunningElector, first: (at: ContinuousClock.Instant, epoch: Int64), b: RunningElector) {
            let a = start("a", on: etcd)
            try expect(await waitOneLeaderAtMost([a]) { a.elector.servingEpoch() != nil }, "a did not lead")
            let first = try #require(a.lastLeading)
            let b = start("b", on: etcd)
            let leader = LeaderRecord(member: "a", leaseID: a.elector.leaseID ?? 0, epoch: first.epoch)
            try expect(await waitOneLeaderAtMost([a, b]) { b.seenLeader == leader }, "b did not see a lead")
            return (a, first, b)
        }

        /// The leader key as etcd holds it.
        func leaderKey(_ etcd: EtcdServer) async throws -> EtcdKeyValue? {
            try await EtcdClient(endpoints: [etcd.endpoint]).range(.key(Self.leaderKey)).first
        }

        @Test func exactlyOneOfTwoLeadsAndTheKeySaysWhich() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let a = start("a", on: etcd)
            let b = start("b", on: etcd)
            #expect(await waitOneLeaderAtMost([a, b]) { a.elector.servingEpoch() != nil || b.elector.servingEpoch() != nil })
            // Two more seconds (several renewals and reads): still exactly one.
            let settled = ContinuousClock.now + .seconds(2)
            _ = await waitOneLeaderAtMost([a, b], timeout: .seconds(3)) {
                #expect([a, b].filter { $0.elector.servingEpoch() != nil }.count == 1)
                return ContinuousClock.now >= settled
            }
            let leader = a.elector.servingEpoch() != nil ? a : b
            let key = try #require(try await leaderKey(etcd))
            #expect(key.text == leader.elector.configuration.member)
            #expect(key.createRevision == leader.elector.servingEpoch())
            #expect(key.lease != nil)

            // A graceful stop gives the lease back: the key goes at once.
            await a.stop()
            await b.stop()
            #expect(try await leaderKey(etcd) == nil)
            #expect(leader.changes.contains { $0.change == .stoppedLeading(epoch: key.createRevision, reason: .shutdown) })
        }

        /// A leader stepping down says so (over replication, in a group); the follower told reads
        /// the key every 20 ms until it is released, not at its next poll: here a minute away.
        @Test func aFollowerToldTheLeaderStepsDownTakesOverWithoutWaitingForItsPoll() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let a = start("a", on: etcd)
            try expect(await waitOneLeaderAtMost([a]) { a.elector.servingEpoch() != nil }, "a did not lead")
            let first = try #require(a.lastLeading)
            let b = start("b", on: etcd, pollInterval: .seconds(60))
            let leader = LeaderRecord(member: "a", leaseID: a.elector.leaseID ?? 0, epoch: first.epoch)
            try expect(await eventually { b.seenLeader == leader }, "b did not see a lead")

            b.elector.leaderSteppingDown()
            await a.stop()
            let stoppedAt = ContinuousClock.now
            #expect(await eventually(timeout: .seconds(5)) { b.lastLeading.map { $0.epoch > first.epoch } ?? false },
                    "b did not take over: it would only at its next poll, in a minute")
            let takeover = try #require(b.lastLeading)
            #expect(takeover.at - stoppedAt < .seconds(2))
            await b.stop()
        }

        @Test func whenTheLeadersLeaseIsRevokedTheOtherLeadsAtAHigherEpoch() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let (a, first, b) = try await startLeaderAndFollower(on: etcd)

            let lease = try #require(try await leaderKey(etcd)?.lease)
            let revokedAt = ContinuousClock.now
            try await EtcdClient(endpoints: [etcd.endpoint]).revokeLease(id: lease)
            #expect(await eventually { b.lastLeading.map { $0.epoch > first.epoch } ?? false })
            #expect(await eventually { a.stoppedLeading(after: revokedAt) != nil })
            #expect(a.elector.servingEpoch() == nil)
            #expect(try await leaderKey(etcd)?.text == "b")
            await a.stop()
            await b.stop()
        }

        @Test func aLeaderWhoseJournalStallsStopsBeforeItsLeaseExpiresAndTheOtherTakesOver() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let (a, first, b) = try await startLeaderAndFollower(on: etcd)

            let stalledAt = ContinuousClock.now
            a.elector.reportJournalStalled()
            #expect(await waitOneLeaderAtMost([a, b]) { b.lastLeading.map { $0.epoch > first.epoch } ?? false })
            let fenced = try #require(a.stoppedLeading(after: stalledAt))
            let ttl = Duration.seconds(3)
            #expect(fenced.reason == .leaseMayExpire)
            #expect(fenced.at < stalledAt + ttl, "a stopped \(fenced.at - stalledAt) after its journal stalled, past its TTL")
            let takeover = try #require(b.lastLeading)
            #expect(takeover.at > fenced.at, "b led before a had stopped")
            await a.stop()
            await b.stop()
        }

        @Test func aLeaderCutOffFromEtcdStopsBeforeItsTTLAndLeadsAgainAtAHigherEpoch() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let a = start("a", on: etcd)
            #expect(await waitOneLeaderAtMost([a]) { a.elector.servingEpoch() != nil })
            let first = try #require(a.lastLeading)

            // etcd frozen: every keepalive hangs until its timeout.
            let pausedAt = ContinuousClock.now
            etcd.pause()
            #expect(await eventually(timeout: .seconds(5), interval: .milliseconds(10)) { a.elector.servingEpoch() == nil })
            let stoppedServingAt = ContinuousClock.now
            etcd.resume()
            #expect(stoppedServingAt < pausedAt + .seconds(3), "a served until \(stoppedServingAt - pausedAt) after etcd froze")
            // The fence closes on the clock; the change is reported at the elector's next wake-up.
            #expect(await eventually(timeout: .seconds(5), interval: .milliseconds(10)) { a.stoppedLeading(after: pausedAt) != nil })
            let fenced = try #require(a.stoppedLeading(after: pausedAt))
            #expect(fenced.at < pausedAt + .seconds(3))

            // Back, after its rejoin delay, at a higher epoch.
            #expect(await eventually(timeout: .seconds(20)) { a.lastLeading.map { $0.epoch > first.epoch } ?? false })
            await a.stop()
        }

        @Test func afterAnEtcdRestartOneLeadsAndTheKeyAgrees() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let a = start("a", on: etcd)
            let b = start("b", on: etcd)
            #expect(await waitOneLeaderAtMost([a, b]) { a.elector.servingEpoch() != nil || b.elector.servingEpoch() != nil })
            let firstEpoch = try #require(a.elector.servingEpoch() ?? b.elector.servingEpoch())

            try etcd.kill()
            try await etcd.start()
            let agreed = await waitOneLeaderAtMost([a, b], timeout: .seconds(20)) {
                guard let key = try? await leaderKey(etcd) else { return false }
                let leaders = [a, b].filter { $0.elector.servingEpoch() == key.createRevision }
                return leaders.count == 1 && leaders[0].elector.configuration.member == key.text
            }
            #expect(agreed)
            #expect((a.elector.servingEpoch() ?? b.elector.servingEpoch() ?? 0) >= firstEpoch)
            await a.stop()
            await b.stop()
        }

        @Test func onlyAnInSyncMemberWins() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let client = EtcdClient(endpoints: [etcd.endpoint])
            let inSyncKey = CampaignCondition.inSyncKey(group: Self.group)
            try await client.put(inSyncKey, value: Data(#"["b"]"#.utf8))
            let a = start("a", on: etcd, condition: .inSyncSet(group: Self.group, contains: "a"))
            // a alone for a second: it may not lead.
            let alone = ContinuousClock.now + .seconds(1)
            _ = await eventually(timeout: .seconds(2)) {
                #expect(a.elector.servingEpoch() == nil)
                return ContinuousClock.now >= alone
            }
            let b = start("b", on: etcd, condition: .inSyncSet(group: Self.group, contains: "b"))
            #expect(await waitOneLeaderAtMost([a, b]) { b.elector.servingEpoch() != nil })
            let first = try #require(b.lastLeading)

            // a joins the in-sync set; b steps down: a takes over.
            try await client.put(inSyncKey, value: Data(#"["a","b"]"#.utf8))
            await b.stop()
            #expect(await waitOneLeaderAtMost([a]) { a.lastLeading.map { $0.epoch > first.epoch } ?? false })
            await a.stop()
        }
    }
}
