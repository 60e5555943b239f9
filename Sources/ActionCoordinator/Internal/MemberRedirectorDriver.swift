import ActionTransport
import ActionWire
import Locking
import ZeroMQ

/// The I/O loop side of ``MemberRedirector``: two ROUTERs, bound as the coordinator binds
/// them, each ActionBus message answered NOT-LEADER in the protocol of the socket it came on
/// (naming the leader's endpoint for it, when known),
/// and each Majordomo client's request forwarded to the leader's clients endpoint, its reply
/// relayed back, through a DEALER of the client's own (so each client's replies keep their
/// order, and the leader sees one peer per client).
final class MemberRedirectorDriver: IOLoopDriver {
    /// What it answered, forwarded, and could not (a Majordomo worker, a Majordomo client while
    /// no leader's endpoint is known, or not ActionBus at all).
    struct Counts: Sendable {
        var clients = 0
        var workers = 0
        var forwarded = 0
        var relayed = 0
        var unanswered = 0
    }

    /// One Majordomo client's way to the leader.
    private final class Forward {
        let socket: Socket
        let target: String
        var lastUsed: ContinuousClock.Instant

        init(socket: Socket, target: String, now: ContinuousClock.Instant) {
            self.socket = socket
            self.target = target
            lastUsed = now
        }
    }

    private static let batchSize = 256
    /// Majordomo clients forwarded at once; past it the one idle longest gives way.
    static let maxForwardedClients = 256
    private let runtime: IOLoopRuntime
    private let clients: Socket
    private let workers: Socket
    /// The leader's endpoints as it published them, when known.
    private let leader: Locked<MemberRedirector.LeaderEndpoints>
    /// Under CURVE, what the forwarding DEALERs present to the leader.
    private let forwardingKeys: CurveClientKeys?
    private var forwards: [[UInt8]: Forward] = [:]
    private(set) var counts = Counts()
    private var incoming = Multipart()
    private var reply = Multipart()
    /// A message on its way through, with its routing id changed (to the leader, or back).
    private var passing = Multipart()
    private var outgoing = PackedFrames()

    init(runtime: IOLoopRuntime, configuration: CoordinatorConfiguration, leader: Locked<MemberRedirector.LeaderEndpoints>) throws {
        self.runtime = runtime
        self.leader = leader
        forwardingKeys = configuration.curve?.memberKeys
        clients = try runtime.makeSocket(.router)
        workers = try runtime.makeSocket(.router)
        do {
            for (router, domain) in [(clients, CurveServerKeys.Domain.clients), (workers, CurveServerKeys.Domain.workers)] {
                try CoordinatorSockets.preparePeerRouter(router, domain: domain, configuration: configuration)
                // Listeners close when the context terminates, not later: the endpoints are the
                // coordinator's next.
                try router.setOption(.linger, 0)
            }
            try clients.bind(configuration.clientsEndpoint)
            try workers.bind(configuration.workersEndpoint)
        } catch {
            clients.close()
            workers.close()
            throw error
        }
        runtime.register(clients) { [unowned self] _ in
            answer(on: clients, with: .notLeader, naming: \.clients, counting: \.clients, forwardingMajordomo: true)
        }
        runtime.register(workers) { [unowned self] _ in answer(on: workers, with: .workerNotLeader, naming: \.workers, counting: \.workers) }
    }

    /// Answers what waits on `socket` with `command`, NOT-LEADER, naming the leader's endpoint at
    /// `endpoint` when known, and forwards a Majordomo client's request to the leader when
    /// `forwardingMajordomo`.
    private func answer(
        on socket: Socket, with command: WireCommand, naming endpoint: KeyPath<MemberRedirector.LeaderEndpoints, String?>,
        counting counter: WritableKeyPath<Counts, Int>, forwardingMajordomo: Bool = false
    ) {
        let named = leader.withLock { $0[keyPath: endpoint] }
        for _ in 0..<Self.batchSize {
            guard socket.receiveBusMessageIfAvailable(into: &incoming, envelope: 1) else { return }
            if forwardingMajordomo, incoming.count >= 3, MajordomoRequest.matches(incoming.packedFrames, at: 1) {
                forwardToLeader()
                continue
            }
            guard incoming.count >= 2, WireHeader.hasSignature(incoming[1]) else {
                counts.unanswered += 1
                continue
            }
            outgoing.removeAll()
            outgoing.append(incoming[0])
            outgoing.append(WireHeader.bytes(command))
            if let named { outgoing.append(named) }
            // A peer whose queue is full is not waiting for this answer.
            if (try? socket.sendBusMessage(outgoing, envelope: 1, options: .dontWait)) != nil {
                counts[keyPath: counter] += 1
            }
        }
    }

    // MARK: Majordomo clients

    /// Sends the Majordomo request in `incoming` (after the client's routing id) to the leader,
    /// as it came, on the client's own DEALER.
    private func forwardToLeader() {
        guard let target = leader.withLock({ $0.clients }) else {
            counts.unanswered += 1
            return
        }
        let client = Array(incoming[0])
        let now = ContinuousClock.now
        let forward: Forward
        if let existing = forwards[client], existing.target == target {
            forward = existing
        } else {
            if let stale = forwards.removeValue(forKey: client) { close(stale) }
            if forwards.count >= Self.maxForwardedClients, let idlest = forwards.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                forwards[idlest.key] = nil
                close(idlest.value)
            }
            do {
                let socket = try runtime.makeSocket(.dealer)
                try socket.setOption(.linger, 0)
                // Under CURVE, as a fellow member (the client's key was checked here).
                try forwardingKeys?.apply(to: socket)
                try socket.connect(target)
                forward = Forward(socket: socket, target: target, now: now)
            } catch {
                counts.unanswered += 1
                return
            }
            forwards[client] = forward
            runtime.register(forward.socket) { [unowned self] socket in relayReplies(from: socket, to: client) }
        }
        forward.lastUsed = now
        passing.removeAll()
        for index in 1..<incoming.count { passing.append(incoming[index]) }
        // A leader that is not taking more is not waiting for this one: the client asks again.
        if (try? forward.socket.send(passing, options: .dontWait)) != nil { counts.forwarded += 1 } else { counts.unanswered += 1 }
    }

    /// Relays the leader's replies on a client's DEALER to that client.
    private func relayReplies(from socket: Socket, to client: [UInt8]) {
        for _ in 0..<Self.batchSize {
            do {
                try socket.receive(into: &reply, options: .dontWait)
            } catch {
                return
            }
            passing.removeAll()
            passing.append(client)
            for index in 0..<reply.count { passing.append(reply[index]) }
            if (try? clients.send(passing, options: .dontWait)) != nil { counts.relayed += 1 }
        }
    }

    private func close(_ forward: Forward) {
        runtime.unregister(forward.socket)
        forward.socket.close()
    }
}
