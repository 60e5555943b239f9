import Foundation

extension EtcdClient {
    /// Runs a transaction: if every condition of `compare` holds, the operations of `success`,
    /// else those of `failure`, all at one revision.
    package func transaction(
        compare: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation] = []
    ) async throws(EtcdError) -> EtcdTransactionResult {
        let request = EtcdWire.TxnRequest(
            compare: compare.map(Self.wireCompare), success: success.map(Self.wireOperation), failure: failure.map(Self.wireOperation)
        )
        let answer: EtcdWire.TxnAnswer
        do {
            answer = try await post("v3/kv/txn", request, as: EtcdWire.TxnAnswer.self)
        } catch {
            // A put attached to a lease that is gone fails the whole transaction.
            let leases = (success + failure).compactMap { operation -> Int64? in
                if case let .put(_, _, lease) = operation { lease } else { nil }
            }
            throw leases.first.map { Self.leaseError(error, id: $0) } ?? error
        }
        let revision = try Self.revision(answer.header)
        let results = try (answer.responses ?? []).map { (response) throws(EtcdError) -> EtcdTransactionResult.OperationResult in
            if let put = response.response_put {
                // A response's own header may leave out the revision (the transaction's holds).
                return .put(revision: put.header?.revision?.value ?? revision)
            }
            if let range = response.response_range {
                var complete = range
                if complete.header?.revision == nil { complete.header = answer.header }
                return .get(try Self.range(complete))
            }
            if let delete = response.response_delete_range {
                return .deleted(count: delete.deleted?.value ?? 0)
            }
            throw .malformed(response: "transaction response of an unknown kind")
        }
        return EtcdTransactionResult(succeeded: answer.succeeded ?? false, revision: revision, results: results)
    }

    private static func wireCompare(_ compare: EtcdCompare) -> EtcdWire.Compare {
        var wire = EtcdWire.Compare(key: Data(compare.key.utf8), target: "", result: compare.relation.rawValue)
        switch compare.target {
        case let .createRevision(revision):
            wire.target = "CREATE"
            wire.create_revision = .init(revision)
        case let .modRevision(revision):
            wire.target = "MOD"
            wire.mod_revision = .init(revision)
        case let .version(version):
            wire.target = "VERSION"
            wire.version = .init(version)
        case let .value(value):
            wire.target = "VALUE"
            wire.value = value
        }
        return wire
    }

    private static func wireOperation(_ operation: EtcdOperation) -> EtcdWire.RequestOp {
        switch operation {
        case let .put(key, value, lease):
            return EtcdWire.RequestOp(request_put: .init(key: Data(key.utf8), value: value, lease: lease.map(EtcdWire.Int64Text.init)))
        case let .get(selection):
            let (key, rangeEnd) = keyAndRangeEnd(selection)
            return EtcdWire.RequestOp(request_range: .init(key: key, range_end: rangeEnd))
        case let .delete(selection):
            let (key, rangeEnd) = keyAndRangeEnd(selection)
            return EtcdWire.RequestOp(request_delete_range: .init(key: key, range_end: rangeEnd))
        }
    }
}
