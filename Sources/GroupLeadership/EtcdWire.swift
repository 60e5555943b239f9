import Foundation

/// The JSON bodies of etcd's v3 gateway (grpc-gateway over the gRPC API), as far as
/// ``EtcdClient`` uses them.
///
/// What the gateway does that the types below absorb: keys and values are base64 (`Data`'s
/// default coding); int64 fields are JSON strings; fields at their zero value are left out
/// (`succeeded: false`, `count: 0`, a lease's `TTL` when it is gone), so every field is optional.
enum EtcdWire {
    /// An int64 as the gateway writes it (a string); a bare number is read too.
    struct Int64Text: Codable, Sendable {
        let value: Int64

        init(_ value: Int64) {
            self.value = value
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                value = number
                return
            }
            let text = try container.decode(String.self)
            guard let number = Int64(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an int64: \(text)")
            }
            value = number
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(String(value))
        }
    }

    struct Header: Decodable {
        var revision: Int64Text?
    }

    struct KeyValue: Decodable {
        var key: Data?
        var value: Data?
        var create_revision: Int64Text?
        var mod_revision: Int64Text?
        var version: Int64Text?
        var lease: Int64Text?
    }

    // MARK: Leases

    struct LeaseGrantRequest: Encodable {
        var TTL: Int64Text
    }

    struct LeaseIDRequest: Encodable {
        var ID: Int64Text
    }

    /// The answer to a grant, a keepalive (inside `result`) and a time-to-live query.
    struct LeaseAnswer: Decodable {
        var header: Header?
        var ID: Int64Text?
        var TTL: Int64Text?
        var grantedTTL: Int64Text?
        var error: String?
    }

    /// The keepalive endpoint is a stream: each answer is wrapped as `{"result": ...}`.
    struct KeepAliveAnswer: Decodable {
        var result: LeaseAnswer?
    }

    struct HeaderOnlyAnswer: Decodable {
        var header: Header?
    }

    // MARK: Keys

    struct PutRequest: Encodable {
        var key: Data
        var value: Data
        var lease: Int64Text?
    }

    struct RangeRequest: Encodable {
        var key: Data
        var range_end: Data?
    }

    struct RangeAnswer: Decodable {
        var header: Header?
        var kvs: [KeyValue]?
    }

    struct DeleteRangeRequest: Encodable {
        var key: Data
        var range_end: Data?
    }

    struct DeleteRangeAnswer: Decodable {
        var header: Header?
        var deleted: Int64Text?
    }

    // MARK: Transactions

    struct Compare: Encodable {
        var key: Data
        var target: String
        var result: String
        var create_revision: Int64Text?
        var mod_revision: Int64Text?
        var version: Int64Text?
        var value: Data?
    }

    struct RequestOp: Encodable {
        var request_put: PutRequest?
        var request_range: RangeRequest?
        var request_delete_range: DeleteRangeRequest?
    }

    struct TxnRequest: Encodable {
        var compare: [Compare]
        var success: [RequestOp]
        var failure: [RequestOp]
    }

    struct ResponseOp: Decodable {
        var response_put: HeaderOnlyAnswer?
        var response_range: RangeAnswer?
        var response_delete_range: DeleteRangeAnswer?
    }

    struct TxnAnswer: Decodable {
        var header: Header?
        var succeeded: Bool?
        var responses: [ResponseOp]?
    }

    /// The gateway's error body: `{"error": ..., "message": ..., "code": <gRPC code>}`.
    struct ErrorAnswer: Decodable {
        var message: String?
        var code: Int?

        /// gRPC's NOT_FOUND: what the lease calls answer for a lease that is gone.
        static let notFound = 5
    }
}
