import ActionTransport
import ActionWire
import Logging
import ZeroMQ

/// Majordomo peers on the bus: MDP/0.1 (RFC 7) and MDP/0.2 (RFC 18) clients on the clients
/// socket and workers on the workers socket, turned into what the core takes and answered in
/// their own framing.
///
/// A Majordomo request becomes a perform with an id made here (MDP has no request identity);
/// a Majordomo worker is registered as a worker with one credit, sent its requests one a
/// message with the request id as the client address, and its REPLY or FINAL becomes the
/// outcome. Loop thread only.
final class MajordomoBridge {
    private let clients: Socket
    private let workers: Socket
    private let limits: WireLimits
    private let logger: Logger
    /// Where a refusal of a request with a service that is not an action goes, as any reply.
    private let commitGate: CommitGate
    /// Takes the translated messages; set once it exists.
    @exclusivity(unchecked) var core: CoordinatorCore!
    @exclusivity(unchecked) private var outgoing = PackedFrames()
    /// Registered workers that speak Majordomo rather than ABP, and their version.
    @exclusivity(unchecked) private var registeredWorkers: [WorkerID: MajordomoWorkerVersion] = [:]
    /// The Majordomo peer whose message is being handled: what the core answers it (DISCONNECT
    /// to an unknown worker) is framed in its version, without keeping anything for it.
    @exclusivity(unchecked) private var sender: (id: WorkerID, version: MajordomoWorkerVersion)?
    @exclusivity(unchecked) private var sequence: UInt64 = 0
    /// The request-id prefix (`mdp:<instance>:<routing id>:`) of the Majordomo client heard from
    /// last: a pipelined client sends its requests in a row, and the prefix's text was made
    /// again for each of them.
    @exclusivity(unchecked) private var lastPrefix: (routingID: [UInt8], prefix: String)?

    init(clients: Socket, workers: Socket, limits: WireLimits, commitGate: CommitGate, logger: Logger) {
        self.clients = clients
        self.workers = workers
        self.limits = limits
        self.commitGate = commitGate
        self.logger = logger
    }

    // MARK: Clients

    /// A Majordomo client's message (in `incoming`, after its routing id): a perform for the
    /// core, or a refusal in the client's own framing.
    func handleClientMessage(_ incoming: Multipart, routingID: [UInt8], curveKey: String?) {
        let request: MajordomoRequest
        do {
            request = try MajordomoRequest.decode(incoming.packedFrames, at: 1, limits: limits)
        } catch {
            // Counted, and answered in the framing its signature asks for (with the service frame
            // it sent), so whoever sent it sees why: a version not spoken here, a command that is
            // not REQUEST, a service that is not a name.
            core.recordMalformed(fromWorker: false)
            let code = error.code == .unsupportedVersion ? BusErrorCode.unsupportedVersion : BusErrorCode.malformedRequest
            if let refusal = MajordomoRequest.refusal(incoming, at: 1, body: OutcomeJSON.encodeError(code: code, message: error.message)) {
                outgoing.removeAll()
                outgoing.append(routingID)
                for frame in refusal.frames { outgoing.append(frame) }
                try? clients.send(outgoing, options: .dontWait)
            }
            return
        }
        sequence += 1
        // MDP has no request identity: make one that no other connection, and no other
        // coordinator instance (the journal outlives this one), can produce.
        let prefix: String
        if let last = lastPrefix, last.routingID == routingID {
            prefix = last.prefix
        } else {
            prefix = "mdp:\(core.instance):\(RoutingIDText.of(routingID)):"
            lastPrefix = (routingID, prefix)
        }
        let wireRequest = WireRequest(requestID: prefix + String(sequence), action: request.service, input: request.body)
        let client = ClientAddress(routingID: routingID, protocol: .majordomo(request.dialect, service: request.service), curveKey: curveKey)
        guard WireName.isActionName(request.service) else {
            let outcome = WireOutcome.failure(for: wireRequest, code: BusErrorCode.unknownAction,
                                              message: "service '\(request.service)' is not an action name (Feature.action)")
            commitGate.hold(.outcome(outcome), to: client)
            return
        }
        core.received(.perform(wireRequest), from: client, now: .now)
    }

    /// The JSON body a Majordomo client gets for a reply: the outcome; nothing for ACCEPTED.
    static func body(of reply: ClientReply) -> [UInt8]? {
        switch reply {
        case .outcome(let outcome): return OutcomeJSON.encode(outcome)
        case .error(_, let code, let message): return OutcomeJSON.encodeError(code: code, message: message)
        default: return nil
        }
    }

    // MARK: Workers

    /// A Majordomo worker's message (in `incoming`, after its routing id): from its READY on,
    /// what goes to it is framed in its version.
    func handleWorkerMessage(_ incoming: Multipart, from id: WorkerID) {
        let version = MajordomoWorkerMessage.version(incoming, at: 1)
        sender = version.map { (id, $0) }
        defer { sender = nil }
        let message: MajordomoWorkerMessage
        do {
            message = try MajordomoWorkerMessage.decode(incoming.packedFrames, at: 1, limits: limits)
        } catch {
            core.recordMalformed(fromWorker: true)
            logger.warning("Majordomo worker message refused", metadata: ["worker.id": "\(id)", "wire.error": "\(error)"])
            // RFC 7: the broker answers what it cannot take with DISCONNECT, and the worker
            // registers again (a registered one leaves first: what it holds is requeued, not
            // counted against it). Another MDPW version cannot be answered in its own terms
            // (any other error has a version, so the DISCONNECT below is always framed).
            if error.code != .unsupportedVersion {
                if registeredWorkers[id] != nil { core.received(.disconnect, from: id, now: .now) }
                if let version = self.version(of: id) { _ = transmit(.disconnect, to: id, version: version) }
            }
            return
        }
        guard let version else { return }
        let now = ContinuousClock.now
        switch message {
        case .ready(let service):
            if !WireName.isActionName(service) {
                logger.warning("a Majordomo worker serves a service that is not an action name (Feature.action); no request will reach it",
                               metadata: ["worker.id": "\(id)", "worker.service": "\(service)", "worker.protocol": "\(version.name)"])
            }
            registeredWorkers[id] = version
            core.registerMajordomoWorker(
                id, service: service, name: Self.workerName(id.routingID, version: version), protocolName: version.name, now: now
            )
        case .reply(let clientAddress, let body):
            core.receivedMajordomoReply(requestID: String(decoding: clientAddress, as: UTF8.self), body: body, from: id, now: now)
        case .partial:
            // Part of an answer: an outcome has one output, so only the FINAL counts; this one
            // says the worker is alive.
            core.received(.heartbeat, from: id, now: now)
        case .heartbeat:
            core.received(.heartbeat, from: id, now: now)
        case .disconnect:
            core.received(.disconnect, from: id, now: now)
        }
    }

    /// `mdp01-` or `mdp02-` and the routing id as text.
    static func workerName(_ routingID: [UInt8], version: MajordomoWorkerVersion = .v01) -> String {
        (version == .v01 ? "mdp01-" : "mdp02-") + RoutingIDText.of(routingID)
    }

    /// The Majordomo version `worker` speaks: a registered one's, or the sender's being answered;
    /// `nil` for an ABP worker.
    func version(of worker: WorkerID) -> MajordomoWorkerVersion? {
        registeredWorkers[worker] ?? (sender?.id == worker ? sender?.version : nil)
    }

    /// Whether `worker` registered as a Majordomo worker (it takes one request a message).
    func isRegistered(_ worker: WorkerID) -> Bool {
        registeredWorkers[worker] != nil
    }

    /// An ABP message came from `worker`: whatever spoke Majordomo on that connection before
    /// is gone.
    func heardActionBus(from worker: WorkerID) {
        if !registeredWorkers.isEmpty { registeredWorkers[worker] = nil }
    }

    /// `worker` left.
    func forget(_ worker: WorkerID) {
        registeredWorkers[worker] = nil
    }

    /// Sends an instruction in Majordomo's terms: REQUEST with the request id as the client
    /// address (the worker echoes it in its reply), HEARTBEAT, DISCONNECT. Majordomo has no
    /// WELCOME or CANCEL (nor END-SESSION, SWITCHES, REPORTING): the worker keeps its own
    /// heartbeat, and a cancelled request's reply is discarded. `false` when it cannot leave.
    func transmit(_ instruction: WorkerInstruction, to worker: WorkerID, version: MajordomoWorkerVersion) -> Bool {
        // The request id and the input are all RFC 7 carries; a packed record is read in place.
        let requests: [(requestID: String, input: ArraySlice<UInt8>)]
        switch instruction {
        case .request(let request): requests = [(request.requestID, request.input[...])]
        case .requestBatch(let batch): requests = batch.map { ($0.requestID, $0.input[...]) }
        case .packedRequest(let packed): requests = [(packed.requestID, packed.input)]
        case .packedRequests(let batch): requests = batch.map { ($0.requestID, $0.input) }
        case .welcome, .cancel, .endSession, .switches, .reporting, .notLeader, .resultsTaken: return true
        case .heartbeat, .disconnect:
            outgoing.removeAll()
            outgoing.append(worker.routingID)
            if instruction == .heartbeat {
                MajordomoWorkerMessage.encodeHeartbeat(version: version, into: &outgoing)
            } else {
                MajordomoWorkerMessage.encodeDisconnect(version: version, into: &outgoing)
            }
            return (try? workers.send(outgoing, options: .dontWait)) != nil
        }
        for request in requests {
            outgoing.removeAll()
            outgoing.append(worker.routingID)
            MajordomoWorkerMessage.encodeRequest(clientAddress: request.requestID, body: request.input, version: version, into: &outgoing)
            guard (try? workers.send(outgoing, options: .dontWait)) != nil else { return false }
        }
        return true
    }
}
