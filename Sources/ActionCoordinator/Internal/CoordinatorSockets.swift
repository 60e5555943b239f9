import ActionTransport
import ActionWire
import ZeroMQ

/// The coordinator's three sockets, made, secured with CURVE when configured, and bound: the
/// clients and workers ROUTERs and the outcome stream's XPUB.
///
/// Only the coordinator's I/O loop thread touches them (`Socket` is not `Sendable`); the loop's
/// runtime closes them when it stops.
struct CoordinatorSockets {
    let clients: Socket
    let workers: Socket
    let outcomes: Socket
    /// The endpoints bound, with the ports chosen for `*`.
    let endpoints: CoordinatorEndpoints

    /// Makes and binds the sockets; closes them again if any option or bind fails.
    init(runtime: IOLoopRuntime, configuration: CoordinatorConfiguration) throws {
        clients = try runtime.makeSocket(.router)
        workers = try runtime.makeSocket(.router)
        outcomes = try runtime.makeSocket(.xpub)
        do {
            for (router, domain) in [(clients, CurveServerKeys.Domain.clients), (workers, CurveServerKeys.Domain.workers)] {
                try Self.preparePeerRouter(router, domain: domain, configuration: configuration)
                try router.setOption(.routerMandatory, true)
                try router.setOption(.sendHighWaterMark, configuration.peerHighWaterMark)
                try router.setOption(.receiveHighWaterMark, configuration.peerHighWaterMark)
            }
            try outcomes.setOption(.xpubVerbose, true)
            try outcomes.setOption(.xpubNoDrop, true)
            try outcomes.setOption(.sendHighWaterMark, configuration.outcomeHighWaterMark)
            try outcomes.setOption(.maxMessageSize, 4096)
            if let curve = configuration.curve {
                try curve.apply(to: outcomes, domain: CurveServerKeys.Domain.outcomes)
            }
            try clients.bind(configuration.clientsEndpoint)
            try workers.bind(configuration.workersEndpoint)
            try outcomes.bind(configuration.outcomesEndpoint)
            endpoints = CoordinatorEndpoints(
                clients: try clients.lastEndpoint, workers: try workers.lastEndpoint, outcomes: try outcomes.lastEndpoint
            )
        } catch {
            clients.close()
            workers.close()
            outcomes.close()
            throw error
        }
    }

    /// What the clients and workers ROUTERs have alike, the coordinator's and those a group
    /// member answers on while it does not lead: clients and workers keep their routing ids
    /// across reconnections (the new connection takes the identity over from the dead one),
    /// the message limit, and CURVE for the socket's domain when configured.
    static func preparePeerRouter(_ router: Socket, domain: String, configuration: CoordinatorConfiguration) throws {
        try router.setOption(.routerHandover, true)
        try router.setOption(.maxMessageSize, WirePacking.maxFrameBytes(maxMessageBytes: configuration.maxMessageBytes))
        if let curve = configuration.curve { try curve.apply(to: router, domain: domain) }
    }

    /// The three, for what is done to each alike.
    var all: [Socket] { [clients, workers, outcomes] }
}
