import Foundation

/// Who may read outcomes' payloads over HTTP: `/api/outcomes` and the dashboard's live tail
/// (`/api/live`) carry every action's output, so they are served only to a bearer token's
/// holder, or to anyone only where the operator says so (loopback by default). Health,
/// readiness, `/metrics` and the fleet reports carry no payload and stay open for probes and
/// scrapers.
public struct PayloadAccess: Sendable, Equatable {
    enum Rule: Sendable, Equatable {
        case bearerToken([UInt8])
        case open
        case closed(reason: String)
    }

    let rule: Rule

    /// Payloads for requests that carry `Authorization: Bearer TOKEN` (or, for a WebSocket,
    /// which browsers cannot give headers, the `access_token` query item of RFC 6750).
    public static func bearerToken(_ token: String) -> PayloadAccess {
        PayloadAccess(rule: .bearerToken(Array(token.utf8)))
    }

    /// Payloads for anyone who can reach the server.
    public static let open = PayloadAccess(rule: .open)

    /// No payloads over HTTP, and `reason` in the 403 that says so.
    public static func closed(reason: String) -> PayloadAccess {
        PayloadAccess(rule: .closed(reason: reason))
    }

    /// The default of a server on `address` without a token: open on a loopback address, where
    /// only this host's users reach it, closed anywhere else.
    public static func `default`(address: String) -> PayloadAccess {
        guard let (host, _) = try? OperationsServer.parse(address), isLoopback(host) else {
            return .closed(reason: "outcomes' payloads are served over HTTP only on a loopback address or with a bearer token: "
                + "start the coordinator with --http-token-file FILE (or --http-unauthenticated-payloads to serve them to anyone)")
        }
        return .open
    }

    /// Whether `host` (as `--http` names it) is a loopback address.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Reads a bearer token from `path` (a file or a mounted secret): its text without
    /// surrounding whitespace, which must be at least 16 characters.
    public static func tokenFile(_ path: String) throws -> PayloadAccess {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw OperationsError("cannot read the HTTP token file \(path): \(error.localizedDescription)")
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16 else {
            throw OperationsError("the HTTP token in \(path) is \(token.isEmpty ? "empty" : "too short"): use at least 16 characters, e.g. `openssl rand -hex 32 > \(path)`")
        }
        guard !token.contains(where: { $0.isWhitespace }) else {
            throw OperationsError("the HTTP token in \(path) contains whitespace: a bearer token is one word")
        }
        return .bearerToken(token)
    }

    /// `nil` when a request with this `Authorization` header and query may read payloads, else
    /// the reply that refuses it.
    func refusal(authorization: String?, query: [String: String]) -> OperationsServer.Reply? {
        switch rule {
        case .open:
            return nil
        case .closed(let reason):
            return .error(403, reason)
        case .bearerToken(let expected):
            let given: String?
            if let authorization, authorization.lowercased().hasPrefix("bearer ") {
                given = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            } else {
                given = query["access_token"]
            }
            guard let given else {
                return .error(401, "outcomes' payloads need a bearer token: send Authorization: Bearer TOKEN")
            }
            return Self.constantTimeEqual(Array(given.utf8), expected) ? nil : .error(401, "the bearer token is not the one this server takes")
        }
    }

    /// Compares without returning early, so that the time taken does not tell how much of a
    /// guessed token was right.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            difference |= (index < lhs.count ? lhs[index] : 0) ^ (index < rhs.count ? rhs[index] : 0)
        }
        return difference == 0
    }

    /// What the log says of it at startup.
    var summary: String {
        switch rule {
        case .open: "open"
        case .closed: "off (no token)"
        case .bearerToken: "bearer token"
        }
    }
}
