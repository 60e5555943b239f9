import Foundation

extension EtcdClient {
    /// Grants a lease of `ttlSeconds` (etcd may raise it to its minimum).
    package func grantLease(ttlSeconds: Int64) async throws(EtcdError) -> EtcdLease {
        let answer = try await post("v3/lease/grant", EtcdWire.LeaseGrantRequest(TTL: .init(ttlSeconds)), as: EtcdWire.LeaseAnswer.self)
        if let error = answer.error, !error.isEmpty { throw .malformed(response: "lease grant refused: \(error)") }
        guard let id = answer.ID?.value, let ttl = answer.TTL?.value, ttl > 0 else {
            throw .malformed(response: "lease grant without ID or TTL")
        }
        return EtcdLease(id: id, ttlSeconds: ttl)
    }

    /// Renews a lease once (one message of the keepalive stream) and returns it with its time
    /// to live restarted; ``EtcdError/leaseNotFound(id:)`` when it is gone.
    package func keepAliveOnce(leaseID: Int64) async throws(EtcdError) -> EtcdLease {
        let answer = try await post("v3/lease/keepalive", EtcdWire.LeaseIDRequest(ID: .init(leaseID)), as: EtcdWire.KeepAliveAnswer.self)
        guard let result = answer.result else { throw .malformed(response: "keepalive answer without result") }
        // A lease that is gone comes back with no TTL (0, left out by the gateway).
        guard let ttl = result.TTL?.value, ttl > 0 else { throw .leaseNotFound(id: leaseID) }
        return EtcdLease(id: leaseID, ttlSeconds: ttl)
    }

    /// Revokes a lease: every key attached to it is deleted at once.
    package func revokeLease(id: Int64) async throws(EtcdError) {
        do {
            _ = try await post("v3/lease/revoke", EtcdWire.LeaseIDRequest(ID: .init(id)), as: EtcdWire.HeaderOnlyAnswer.self)
        } catch {
            throw Self.leaseError(error, id: id)
        }
    }

    /// The seconds a lease has left, and what it was granted with.
    package func timeToLive(leaseID: Int64) async throws(EtcdError) -> (remainingSeconds: Int64, grantedSeconds: Int64) {
        let answer = try await post("v3/lease/timetolive", EtcdWire.LeaseIDRequest(ID: .init(leaseID)), as: EtcdWire.LeaseAnswer.self)
        // A lease that is gone has TTL -1.
        guard let remaining = answer.TTL?.value, remaining >= 0 else { throw .leaseNotFound(id: leaseID) }
        return (remaining, answer.grantedTTL?.value ?? 0)
    }

    /// `error`, as ``EtcdError/leaseNotFound(id:)`` when it is the gateway's "lease not found"
    /// (gRPC code 5, NOT_FOUND, HTTP 404).
    static func leaseError(_ error: EtcdError, id: Int64) -> EtcdError {
        if case let .httpStatus(status, body) = error, status == 404,
           (try? JSONDecoder().decode(EtcdWire.ErrorAnswer.self, from: Data(body.utf8)))?.code == EtcdWire.ErrorAnswer.notFound {
            return .leaseNotFound(id: id)
        }
        return error
    }
}
