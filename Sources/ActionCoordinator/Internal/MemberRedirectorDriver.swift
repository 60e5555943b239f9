import ActionTransport
import ActionWire
import ZeroMQ

/// The I/O loop side of ``MemberRedirector``: two ROUTERs, bound as the coordinator binds
/// them, each message answered NOT-LEADER in the protocol of the socket it came on.
final class MemberRedirectorDriver: IOLoopDriver {
    /// What it answered, and what it could not (Majordomo, or not ActionBus at all).
    struct Counts: Sendable {
        var clients = 0
        var workers = 0
        var unanswered = 0
    }

    private static let batchSize = 256
    private let clients: Socket
    private let workers: Socket
    private(set) var counts = Counts()
    private var incoming = Multipart()
    private var outgoing = PackedFrames()

    init(runtime: IOLoopRuntime, configuration: CoordinatorConfiguration) throws {
        clients = try runtime.makeSocket(.router)
        workers = try runtime.makeSocket(.router)
        do {
            for router in [clients, workers] {
                try router.setOption(.routerHandover, true)
                try router.setOption(.maxMessageSize, WirePacking.maxFrameBytes(maxMessageBytes: configuration.maxMessageBytes))
                // Listeners close when the context terminates, not later: the endpoints are the
                // coordinator's next.
                try router.setOption(.linger, 0)
            }
            if let curve = configuration.curve {
                try curve.apply(to: clients, domain: CurveServerKeys.Domain.clients)
                try curve.apply(to: workers, domain: CurveServerKeys.Domain.workers)
            }
            try clients.bind(configuration.clientsEndpoint)
            try workers.bind(configuration.workersEndpoint)
        } catch {
            clients.close()
            workers.close()
            throw error
        }
        runtime.register(clients) { [unowned self] _ in answer(on: clients, with: .notLeader, counting: \.clients) }
        runtime.register(workers) { [unowned self] _ in answer(on: workers, with: .workerNotLeader, counting: \.workers) }
    }

    /// Answers what waits on `socket` with `command` (a header alone: NOT-LEADER has no body).
    private func answer(on socket: Socket, with command: WireCommand, counting counter: WritableKeyPath<Counts, Int>) {
        for _ in 0..<Self.batchSize {
            guard socket.receiveBusMessageIfAvailable(into: &incoming, envelope: 1) else { return }
            guard incoming.count >= 2, WireHeader.hasSignature(incoming[1]) else {
                counts.unanswered += 1
                continue
            }
            outgoing.removeAll()
            outgoing.append(incoming[0])
            outgoing.append(WireHeader.bytes(command))
            // A peer whose queue is full is not waiting for this answer.
            if (try? socket.sendBusMessage(outgoing, envelope: 1, options: .dontWait)) != nil {
                counts[keyPath: counter] += 1
            }
        }
    }
}
