import ActionBusTestSupport
import Foundation
import GroupLeadership
import Testing

extension EtcdTests {
    /// ``EtcdClient`` against a real etcd: leases, keys, transactions, endpoints that fail.
    @Suite struct Client {
        @Test func grantsRenewsAndRevokesALease() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let client = EtcdClient(endpoints: [etcd.endpoint])
            let lease = try await client.grantLease(ttlSeconds: 5)
            #expect(lease.ttlSeconds == 5)
            let left = try await client.timeToLive(leaseID: lease.id)
            #expect(left.grantedSeconds == 5)
            #expect((1...5).contains(left.remainingSeconds))
            #expect(try await client.keepAliveOnce(leaseID: lease.id) == lease)

            // A key attached to the lease goes with it.
            try await client.put("/t/owned", value: Data("x".utf8), lease: lease.id)
            #expect(try await client.range(.key("/t/owned")).first?.lease == lease.id)
            try await client.revokeLease(id: lease.id)
            #expect(try await client.range(.key("/t/owned")).first == nil)

            await #expect(throws: EtcdError.leaseNotFound(id: lease.id)) { try await client.keepAliveOnce(leaseID: lease.id) }
            await #expect(throws: EtcdError.leaseNotFound(id: lease.id)) { try await client.timeToLive(leaseID: lease.id) }
            await #expect(throws: EtcdError.leaseNotFound(id: lease.id)) { try await client.revokeLease(id: lease.id) }
            await #expect(throws: EtcdError.leaseNotFound(id: lease.id)) {
                try await client.put("/t/orphan", value: Data(), lease: lease.id)
            }
        }

        @Test func readsAndDeletesOneKeyOrAPrefix() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let client = EtcdClient(endpoints: [etcd.endpoint])
            let first = try await client.put("/t/a", value: Data("1".utf8))
            try await client.put("/t/b", value: Data("2".utf8))
            try await client.put("/u/c", value: Data("3".utf8))
            let changed = try await client.put("/t/a", value: Data("one".utf8))

            let a = try #require(try await client.range(.key("/t/a")).first)
            #expect(a.text == "one")
            #expect(a.createRevision == first)
            #expect(a.modRevision == changed)
            #expect(a.version == 2)
            #expect(a.lease == nil)

            let prefix = try await client.range(.prefix("/t/"))
            #expect(prefix.keyValues.map(\.key) == ["/t/a", "/t/b"])
            #expect(prefix.revision == changed)
            #expect(try await client.range(.key("/t/none")).keyValues.isEmpty)

            #expect(try await client.deleteRange(.prefix("/t/")) == 2)
            #expect(try await client.range(.prefix("/t/")).keyValues.isEmpty)
            #expect(try await client.range(.prefix("/u/")).keyValues.count == 1)
        }

        @Test func createsAKeyOnlyIfAbsentInATransaction() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let client = EtcdClient(endpoints: [etcd.endpoint])
            let key = "/actionbus/g/leader"
            let created = try await client.transaction(
                compare: [.absent(key)], success: [.put(key: key, value: Data("a".utf8))], failure: [.get(.key(key))]
            )
            #expect(created.succeeded)
            #expect(created.results == [.put(revision: created.revision)])

            let found = try await client.transaction(
                compare: [.absent(key)], success: [.put(key: key, value: Data("b".utf8))], failure: [.get(.key(key))]
            )
            #expect(!found.succeeded)
            guard case let .get(range)? = found.results.first else {
                Issue.record("the failure branch's read is missing: \(found.results)")
                return
            }
            #expect(range.first?.text == "a")
            #expect(range.first?.createRevision == created.revision)

            // Value and modification revision compared; a delete in the branch.
            let stale = try await client.transaction(compare: [EtcdCompare(key: key, .modRevision(created.revision - 1))], success: [.delete(.key(key))])
            #expect(!stale.succeeded)
            let byValue = try await client.transaction(compare: [EtcdCompare(key: key, .value(Data("a".utf8)))], success: [.delete(.key(key))])
            #expect(byValue.succeeded)
            #expect(byValue.results == [.deleted(count: 1)])
            #expect(try await client.range(.key(key)).first == nil)
        }

        @Test func triesTheNextEndpointWhenOneRefuses() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let dead = URL(string: "http://127.0.0.1:\(try freeLoopbackPort())")!
            let client = EtcdClient(endpoints: [dead, etcd.endpoint])
            try await client.put("/t/k", value: Data("v".utf8))
            #expect(try await client.range(.key("/t/k")).first?.text == "v")

            let nobody = EtcdClient(endpoints: [dead])
            await #expect {
                try await nobody.range(.key("/t/k"))
            } throws: { error in
                if case .unreachable(let endpoints, _)? = error as? EtcdError { return endpoints == [dead] }
                return false
            }
        }

        @Test func givesUpOnAFrozenEndpointAfterItsTimeout() async throws {
            let etcd = try await EtcdTests.startEtcd()
            let client = EtcdClient(endpoints: [etcd.endpoint], requestTimeout: .milliseconds(500))
            try await client.put("/t/k", value: Data("v".utf8))
            etcd.pause()
            defer { etcd.resume() }
            let started = ContinuousClock.now
            await #expect {
                try await client.range(.key("/t/k"))
            } throws: { error in
                if case .unreachable? = error as? EtcdError { return true }
                return false
            }
            let waited = ContinuousClock.now - started
            #expect(waited < .seconds(3), "a frozen etcd held the request \(waited)")
        }
    }
}
