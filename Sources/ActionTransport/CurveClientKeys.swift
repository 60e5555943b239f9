import ZeroMQ

/// What a worker, client or subscriber needs to talk to a coordinator that uses CURVE: its own
/// key pair and the coordinator's public key.
public struct CurveClientKeys: Sendable, Hashable {
    /// This peer's key pair; its public key must be in the coordinator's allow-list.
    public var keyPair: CurveKeyPair
    /// The coordinator's public key (Z85).
    public var serverPublicKey: String

    /// Creates the keys.
    public init(keyPair: CurveKeyPair, serverPublicKey: String) {
        self.keyPair = keyPair
        self.serverPublicKey = serverPublicKey
    }

    /// Loads a secret key file (`actionbus keygen`'s `NAME.key`) and the coordinator's `.pub` file.
    public init(secretKeyFile: String, serverKeyFile: String) throws {
        self.init(
            keyPair: try CurveKeyPair(secretKey: try CurveKeyFile.readKey(secretKeyFile)),
            serverPublicKey: try CurveKeyFile.readKey(serverKeyFile)
        )
    }

    /// Makes `socket` a CURVE client of the coordinator; call before `connect`.
    package func apply(to socket: Socket) throws {
        try socket.setOption(.curveServerKey, serverPublicKey)
        try socket.setOption(.curvePublicKey, keyPair.publicKey)
        try socket.setOption(.curveSecretKey, keyPair.secretKey)
    }
}

/// The coordinator's CURVE setup: its secret key and who may connect to which socket.
public struct CurveServerKeys: Sendable, Hashable {
    /// The coordinator's key pair.
    public var keyPair: CurveKeyPair
    /// Public keys allowed on the clients socket and the outcome stream.
    public var allowedClients: Set<String>
    /// Public keys allowed on the workers socket.
    public var allowedWorkers: Set<String>

    /// The ZAP domains the coordinator's sockets use.
    package enum Domain {
        package static let clients = "actionbus.clients"
        package static let workers = "actionbus.workers"
        package static let outcomes = "actionbus.outcomes"
        /// A standby's replication endpoint: only the coordinator key the members share.
        package static let replication = "actionbus.replication"
    }

    /// Creates the keys.
    public init(keyPair: CurveKeyPair, allowedClients: Set<String>, allowedWorkers: Set<String>) {
        self.keyPair = keyPair
        self.allowedClients = allowedClients
        self.allowedWorkers = allowedWorkers
    }

    /// Loads the coordinator's secret key file and the `.pub` files of two directories.
    public init(secretKeyFile: String, allowedClientsDirectory: String, allowedWorkersDirectory: String) throws {
        self.init(
            keyPair: try CurveKeyPair(secretKey: try CurveKeyFile.readKey(secretKeyFile)),
            allowedClients: try CurveKeyFile.readPublicKeys(in: allowedClientsDirectory),
            allowedWorkers: try CurveKeyFile.readPublicKeys(in: allowedWorkersDirectory)
        )
    }

    /// Makes `socket` a CURVE server whose peers the ZAP handler checks under `domain`.
    package func apply(to socket: Socket, domain: String) throws {
        try socket.setOption(.curveServer, true)
        try socket.setOption(.curveSecretKey, keyPair.secretKey)
        try socket.setOption(.zapDomain, domain)
    }

    /// The ZAP decision for a connecting peer: CURVE only, and only keys listed for the domain.
    /// A group's members (and a coordinator and its standbys) share the coordinator key, and
    /// present it to each other as a client's (``memberKeys``): on a standby's replication
    /// endpoint it is the only key allowed; on the clients socket it is allowed too, for a member
    /// that does not lead forwarding its Majordomo clients (whose keys it checked itself).
    package func decide(_ request: ZAPRequest) -> ZAPDecision {
        guard request.mechanism == "CURVE", let key = request.curvePublicKey else {
            return .deny(reason: "CURVE required")
        }
        let allowed: Set<String>
        switch request.domain {
        case Domain.workers: allowed = allowedWorkers
        case Domain.clients: allowed = allowedClients.union([keyPair.publicKey])
        case Domain.outcomes: allowed = allowedClients
        case Domain.replication: allowed = [keyPair.publicKey]
        default: return .deny(reason: "unknown domain")
        }
        return allowed.contains(key) ? .allow(userID: key) : .deny(reason: "key not allowed")
    }

    /// The keys one member presents to another (a leader to its standbys, a member forwarding
    /// Majordomo clients to its leader): the coordinator key they share, as a client's.
    package var memberKeys: CurveClientKeys {
        CurveClientKeys(keyPair: keyPair, serverPublicKey: keyPair.publicKey)
    }
}
