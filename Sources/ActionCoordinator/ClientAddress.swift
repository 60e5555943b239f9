import ActionWire

/// Who sent a request on the clients socket, and how to answer them.
public struct ClientAddress: Hashable, Sendable {
    /// How the client speaks.
    public enum ClientProtocol: Hashable, Sendable {
        /// The ActionBus protocol (docs/PROTOCOL.md).
        case actionBus
        /// Majordomo MDP/0.2, in the given dialect, asking for `service`.
        case majordomo(MajordomoDialect, service: String)
    }

    /// The ROUTER routing id of the client's connection.
    public var routingID: [UInt8]
    /// The client's protocol.
    public var `protocol`: ClientProtocol

    /// Creates an address.
    public init(routingID: [UInt8], protocol: ClientProtocol = .actionBus) {
        self.routingID = routingID
        self.protocol = `protocol`
    }

    /// Hashes the routing id's bytes in one call, not one `combine` per byte.
    public func hash(into hasher: inout Hasher) {
        routingID.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(`protocol`)
    }
}
