import ActionWire

/// Who sent a request on the clients socket, and how to answer them.
package struct ClientAddress: Hashable, Sendable {
    /// How the client speaks.
    package enum ClientProtocol: Hashable, Sendable {
        /// The ActionBus protocol (docs/PROTOCOL.md).
        case actionBus
        /// Majordomo (MDP/0.1 or MDP/0.2), in the given dialect, asking for `service`.
        case majordomo(MajordomoDialect, service: String)
    }

    /// The ROUTER routing id of the client's connection.
    package var routingID: [UInt8]
    /// The client's protocol.
    package var `protocol`: ClientProtocol
    /// The CURVE public key (Z85) the connection was authenticated with; `nil` without CURVE.
    package var curveKey: String?

    /// Creates an address.
    package init(routingID: [UInt8], protocol: ClientProtocol = .actionBus, curveKey: String? = nil) {
        self.routingID = routingID
        self.protocol = `protocol`
        self.curveKey = curveKey
    }

    /// Whether this client may act on (cancel, resend, take the outcome of) a request first
    /// sent by `owner` under `requestID`. Under CURVE only the same key may. Without it, only
    /// the same connection may act on an id of its own form (`<its client id>:<n>`); any other
    /// id is an idempotency key, which any client may resend (that is what keys are for), and
    /// without authentication no stronger claim is possible anyway.
    package func mayActOn(requestID: String, firstSentBy owner: ClientAddress) -> Bool {
        if let ownerKey = owner.curveKey { return curveKey == ownerKey }
        guard requestID.utf8.starts(with: owner.routingID + [UInt8(ascii: ":")]) else { return true }
        return routingID == owner.routingID
    }

    /// Hashes the routing id's bytes in one call, not one `combine` per byte.
    package func hash(into hasher: inout Hasher) {
        routingID.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(`protocol`)
        hasher.combine(curveKey)
    }
}
