import Foundation

extension EtcdClient {
    /// Writes `value` at `key`, attached to `lease` if given; returns the revision it made.
    @discardableResult
    package func put(_ key: String, value: Data, lease: Int64? = nil) async throws(EtcdError) -> Int64 {
        let request = EtcdWire.PutRequest(key: Data(key.utf8), value: value, lease: lease.map(EtcdWire.Int64Text.init))
        do {
            let answer = try await post("v3/kv/put", request, as: EtcdWire.HeaderOnlyAnswer.self)
            return try Self.revision(answer.header)
        } catch {
            throw lease.map { Self.leaseError(error, id: $0) } ?? error
        }
    }

    /// Reads one key or every key under a prefix.
    package func range(_ selection: EtcdKeySelection) async throws(EtcdError) -> EtcdRange {
        let (key, rangeEnd) = Self.keyAndRangeEnd(selection)
        let answer = try await post("v3/kv/range", EtcdWire.RangeRequest(key: key, range_end: rangeEnd), as: EtcdWire.RangeAnswer.self)
        return try Self.range(answer)
    }

    /// Deletes one key or every key under a prefix; returns how many it deleted.
    @discardableResult
    package func deleteRange(_ selection: EtcdKeySelection) async throws(EtcdError) -> Int64 {
        let (key, rangeEnd) = Self.keyAndRangeEnd(selection)
        let request = EtcdWire.DeleteRangeRequest(key: key, range_end: rangeEnd)
        let answer = try await post("v3/kv/deleterange", request, as: EtcdWire.DeleteRangeAnswer.self)
        return answer.deleted?.value ?? 0
    }

    static func revision(_ header: EtcdWire.Header?) throws(EtcdError) -> Int64 {
        guard let revision = header?.revision?.value else { throw .malformed(response: "answer without header.revision") }
        return revision
    }

    static func range(_ answer: EtcdWire.RangeAnswer) throws(EtcdError) -> EtcdRange {
        let keyValues = (answer.kvs ?? []).map { wire in
            EtcdKeyValue(
                key: String(decoding: wire.key ?? Data(), as: UTF8.self),
                value: wire.value ?? Data(),
                createRevision: wire.create_revision?.value ?? 0,
                modRevision: wire.mod_revision?.value ?? 0,
                version: wire.version?.value ?? 0,
                lease: wire.lease?.value
            )
        }
        return EtcdRange(revision: try revision(answer.header), keyValues: keyValues)
    }
}
