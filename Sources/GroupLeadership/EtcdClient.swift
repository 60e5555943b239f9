import Foundation
import Locking

/// A small client for etcd's v3 API through its JSON gateway (`POST /v3/...`), over plain HTTP/1.1
/// (``PlainHTTP``: why not URLSession is said there).
///
/// It holds several endpoints (members of one etcd cluster): a request goes to the one that
/// answered last, and when that one refuses the connection, does not answer within
/// `requestTimeout`, or answers 503 (a member without an etcd leader), to the next, until one
/// answers or all were tried (``EtcdError/unreachable(endpoints:lastError:)``). A retried
/// request may have been carried out by the endpoint that did not answer: callers whose
/// requests are not idempotent (a transaction that creates a key) read what they find.
///
/// Its operations are in `EtcdClient+Leases.swift`, `+KeyValues.swift` and
/// `+Transactions.swift`; the JSON shapes in ``EtcdWire``.
package struct EtcdClient: Sendable {
    package let endpoints: [URL]
    /// How long one attempt at one endpoint may take.
    package let requestTimeout: Duration
    /// The index of the endpoint that answered last, where the next request starts.
    private let preferredEndpoint = Locked(0)

    package init(endpoints: [URL], requestTimeout: Duration = .seconds(1)) {
        precondition(!endpoints.isEmpty, "an etcd client needs at least one endpoint")
        self.endpoints = endpoints
        self.requestTimeout = requestTimeout
    }

    /// Posts `body` as JSON to `path` (such as `v3/kv/range`) and decodes the answer.
    func post<Answer: Decodable>(
        _ path: String, _ body: some Encodable, as answer: Answer.Type
    ) async throws(EtcdError) -> Answer {
        let payload: Data
        do {
            payload = try JSONEncoder().encode(body)
        } catch {
            throw .malformed(response: "request to \(path) not encodable: \(error)")
        }
        let data = try await send(path, payload: payload)
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw .malformed(response: String(decoding: data.prefix(512), as: UTF8.self))
        }
    }

    /// Sends one request, trying the endpoints in turn from the preferred one; returns the body
    /// of the first 200 answer.
    private func send(_ path: String, payload: Data) async throws(EtcdError) -> Data {
        let first = preferredEndpoint.withLock { $0 }
        var lastError = "not tried"
        for offset in endpoints.indices {
            if Task.isCancelled {
                lastError = "cancelled"
                break
            }
            let index = (first + offset) % endpoints.count
            let data: Data
            let status: Int
            do {
                (status, data) = try await PlainHTTP.post(endpoints[index].appendingPathComponent(path), body: payload, timeout: requestTimeout)
            } catch {
                lastError = "\(endpoints[index].absoluteString): \(error)"
                continue
            }
            let text = String(decoding: data.prefix(512), as: UTF8.self)
            if status == 503 {
                lastError = "\(endpoints[index].absoluteString): HTTP 503 \(text)"
                continue
            }
            preferredEndpoint.withLock { $0 = index }
            guard status == 200 else { throw .httpStatus(code: status, body: text) }
            return data
        }
        throw .unreachable(endpoints: endpoints, lastError: lastError)
    }

    /// The end of the range of keys that start with `prefix` (etcd's `range_end`): the prefix
    /// with its last byte below 0xff incremented and what follows it dropped; "\0" (every key)
    /// for a prefix of 0xff bytes only.
    static func rangeEnd(ofPrefix prefix: Data) -> Data {
        var bytes = [UInt8](prefix)
        while let last = bytes.last {
            if last < 0xff {
                bytes[bytes.count - 1] = last + 1
                return Data(bytes)
            }
            bytes.removeLast()
        }
        return Data([0])
    }

    /// The key and range end of a selection, as the gateway takes them.
    static func keyAndRangeEnd(_ selection: EtcdKeySelection) -> (key: Data, rangeEnd: Data?) {
        switch selection {
        case let .key(key):
            (Data(key.utf8), nil)
        case let .prefix(prefix):
            (Data(prefix.utf8), rangeEnd(ofPrefix: Data(prefix.utf8)))
        }
    }
}
