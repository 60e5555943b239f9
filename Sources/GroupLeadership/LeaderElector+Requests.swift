import Foundation

extension LeaderElector {
    /// Carries out one etcd request the campaign asked for and feeds its result back.
    func perform(_ request: LeaderCampaign.Action) async {
        switch request {
        case let .grantLease(ttlSeconds, requestedAt):
            do {
                let lease = try await client.grantLease(ttlSeconds: ttlSeconds)
                handle(.leaseGranted(lease, requestedAt: requestedAt))
            } catch {
                logger.debug("lease not granted", metadata: ["error": "\(error)"])
                handle(.leaseGrantFailed)
            }
        case let .renewLease(id, sentAt):
            do {
                let lease = try await client.keepAliveOnce(leaseID: id)
                handle(.keepAliveSucceeded(lease, sentAt: sentAt))
            } catch {
                logger.debug("keepalive failed", metadata: ["lease": "\(id)", "error": "\(error)"])
                if case .leaseNotFound = error { handle(.leaseNotFound(leaseID: id)) } else { handle(.keepAliveFailed(leaseID: id)) }
            }
        case let .tryTakeLeadership(leaseID):
            handle(await campaign(leaseID: leaseID))
        case let .revokeLease(id):
            // Best effort: a lease not revoked expires on its own.
            do {
                try await client.revokeLease(id: id)
            } catch {
                logger.debug("lease not revoked", metadata: ["lease": "\(id)", "error": "\(error)"])
            }
        case .startServing, .stopServing, .leaderChanged:
            break
        }
    }

    /// The campaign transaction: create the leader key with this lease if it does not exist
    /// (and the campaign condition's key is as read just before), else read the key.
    func campaign(leaseID: Int64) async -> LeaderCampaign.Event {
        let leaderKey = configuration.leaderKey
        var compare = [EtcdCompare.absent(leaderKey)]
        if let condition = configuration.campaignCondition {
            let read: EtcdRange
            do {
                read = try await client.range(.key(condition.key))
            } catch {
                return .campaignFailed(leaseID: leaseID)
            }
            guard condition.allows(read.first) else {
                logger.debug("may not lead now", metadata: ["condition": "\(condition.key)"])
                return .campaignLost(leaseID: leaseID, currentLeader: nil, revision: read.revision)
            }
            compare.append(EtcdCompare(key: condition.key, .modRevision(read.first?.modRevision ?? 0)))
        }
        let result: EtcdTransactionResult
        do {
            result = try await client.transaction(
                compare: compare,
                success: [.put(key: leaderKey, value: Data(configuration.member.utf8), lease: leaseID)],
                failure: [.get(.key(leaderKey))]
            )
        } catch {
            if case .leaseNotFound = error { return .leaseNotFound(leaseID: leaseID) }
            return .campaignFailed(leaseID: leaseID)
        }
        // The put created the key: its create revision is the transaction's revision.
        if result.succeeded { return .campaignWon(leaseID: leaseID, epoch: result.revision) }
        var holder: EtcdKeyValue?
        if case let .get(range)? = result.results.first { holder = range.first }
        // An attempt that got no answer but was carried out (the client tried another endpoint).
        if let holder, holder.lease == leaseID { return .campaignWon(leaseID: leaseID, epoch: holder.createRevision) }
        return .campaignLost(leaseID: leaseID, currentLeader: holder.map(LeaderRecord.init), revision: result.revision)
    }
}
