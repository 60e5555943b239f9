import Foundation

/// Why an ``EtcdClient`` request failed.
package enum EtcdError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No endpoint answered: each refused the connection or did not answer within the request
    /// timeout. `lastError` is what the last one tried said.
    case unreachable(endpoints: [URL], lastError: String)
    /// An endpoint answered with an HTTP status other than 200 (the gateway's error body as it came).
    case httpStatus(code: Int, body: String)
    /// An answer that is not what the v3 JSON gateway sends (not JSON, a field missing).
    case malformed(response: String)
    /// The lease does not exist (never granted, revoked, or expired).
    case leaseNotFound(id: Int64)

    package var description: String {
        switch self {
        case let .unreachable(endpoints, lastError):
            "no etcd endpoint answered (\(endpoints.map(\.absoluteString).joined(separator: ", "))): \(lastError)"
        case let .httpStatus(code, body):
            "etcd answered HTTP \(code): \(body)"
        case let .malformed(response):
            "etcd's answer is not the v3 JSON expected: \(response)"
        case let .leaseNotFound(id):
            "etcd lease \(id) not found (revoked or expired)"
        }
    }
}
