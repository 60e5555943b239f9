import ActionWire
import DequeModule
import Logging
import ZeroMQ

/// Sends clients what the commit gate lets go, in order: ACCEPTEDs (after the acceptance
/// delay, for requests still without an outcome), an ActionBus client's outcomes of a batch
/// as one message, a Majordomo client's outcome as its FINAL reply.
///
/// A reply that finds its client's queue full is kept, in order, in that client's backlog and
/// sent when there is room: a live client never loses a reply to a high-water mark. Loop
/// thread only.
final class ClientReplies {
    private enum Transmission { case sent, full, dropped }

    private let clients: Socket
    private let limits: WireLimits
    private let acceptanceDelay: Duration
    private let maxRepliesOwedPerClient: Int
    private let logger: Logger
    /// Counts deferred and undeliverable replies, and says which requests still await their
    /// outcome; set once the core exists.
    @exclusivity(unchecked) var core: CoordinatorCore!
    @exclusivity(unchecked) private var outgoing = PackedFrames()
    /// Replies waiting for room in their client's queue, per routing id, in order.
    @exclusivity(unchecked) private var backlogs: [RoutingKey: Deque<(reply: ClientReply, client: ClientAddress)>] = [:]
    /// Recorded acceptances waiting out `acceptanceDelay`, oldest first: when due, ACCEPTED
    /// goes for those of their requests that still have no outcome.
    @exclusivity(unchecked) private var deferredAcceptances: Deque<(client: ClientAddress, requestIDs: [String], due: ContinuousClock.Instant)> = []
    /// Outcomes for each ActionBus client while a batch's replies go out, one message each.
    @exclusivity(unchecked) private var outcomeBatches: [RoutingKey: (client: ClientAddress, outcomes: GatheredRecords<WireOutcome>)] = [:]

    init(clients: Socket, configuration: CoordinatorConfiguration, limits: WireLimits, logger: Logger) {
        self.clients = clients
        self.limits = limits
        acceptanceDelay = configuration.acceptanceDelay
        maxRepliesOwedPerClient = configuration.maxRepliesOwedPerClient
        self.logger = logger
    }

    /// Sends the acceptances and replies of a batch that passed the commit gate.
    func release(_ output: HeldOutput) {
        // Acceptances first: a client hears ACCEPTED, if at all, before the OUTCOME of the same
        // request. Deferred ones go only for requests still waiting when they are due.
        if acceptanceDelay == .zero {
            for (client, requestIDs) in output.acceptances { deliverAcceptances(requestIDs, to: client) }
        } else if !output.acceptances.isEmpty {
            let due = ContinuousClock.now + acceptanceDelay
            for (client, requestIDs) in output.acceptances { deferredAcceptances.append((client, requestIDs, due)) }
        }
        // Outcomes for one ActionBus client go out together; any other reply to that client
        // first sends what was gathered for it, so each client sees its replies in order.
        // The gathering of the client the last outcome went to: a run of outcomes for one client
        // (the usual case) finds it without hashing the routing id for each.
        var last: (key: RoutingKey, gathered: GatheredRecords<WireOutcome>)?
        for (reply, client) in output.replies {
            if case .outcome(let outcome) = reply, client.protocol == .actionBus {
                var current: (key: RoutingKey, gathered: GatheredRecords<WireOutcome>)
                if let last, last.key.bytes == client.routingID {
                    current = last
                } else {
                    let key = RoutingKey(client.routingID)
                    current = (key, outcomeBatches[key]?.outcomes ?? gathering(for: key, client))
                }
                if current.gathered.isFull(adding: outcome.byteCount) {
                    deliverOutcomes(for: current.key)
                    current.gathered = gathering(for: current.key, client)
                }
                current.gathered.append(outcome, bytes: outcome.byteCount)
                last = current
            } else {
                if !outcomeBatches.isEmpty { deliverOutcomes(for: RoutingKey(client.routingID)) }
                last = nil
                deliver(reply, to: client)
            }
        }
        for key in Array(outcomeBatches.keys) { deliverOutcomes(for: key) }
    }

    /// ACCEPTED for the deferred acceptances that are due, naming only requests without an
    /// outcome: their records were committed before they were deferred, so nothing waits.
    func sendDueAcceptances(now: ContinuousClock.Instant) {
        while let first = deferredAcceptances.first, first.due <= now {
            deferredAcceptances.removeFirst()
            let waiting = first.requestIDs.filter(core.awaitsOutcome)
            if !waiting.isEmpty { deliverAcceptances(waiting, to: first.client) }
        }
    }

    /// Sends what the backlogs hold while their clients have room.
    func drainBacklogs() {
        guard !backlogs.isEmpty else { return }
        for routingID in Array(backlogs.keys) {
            while let (reply, client) = backlogs[routingID]?.first {
                let result = transmit(reply, to: client)
                if result == .full { break }
                backlogs[routingID]?.removeFirst()
            }
            if backlogs[routingID]?.isEmpty == true { backlogs[routingID] = nil }
        }
    }

    private func deliverAcceptances(_ requestIDs: [String], to client: ClientAddress) {
        var start = 0
        while start < requestIDs.count {
            let end = min(start + limits.maxRequestIDsPerMessage, requestIDs.count)
            deliver(.accepted(requestIDs: Array(requestIDs[start..<end])), to: client)
            start = end
        }
    }

    /// A new, empty gathering of outcomes for `client`, under `key`.
    private func gathering(for key: RoutingKey, _ client: ClientAddress) -> GatheredRecords<WireOutcome> {
        let gathered = GatheredRecords<WireOutcome>()
        outcomeBatches[key] = (client, gathered)
        return gathered
    }

    private func deliverOutcomes(for key: RoutingKey) {
        guard let (client, gathered) = outcomeBatches.removeValue(forKey: key) else { return }
        let outcomes = gathered.take()
        deliver(outcomes.count == 1 ? .outcome(outcomes[0]) : .outcomeBatch(outcomes), to: client)
    }

    /// Sends a reply, behind any the client's backlog holds; a full queue starts a backlog.
    private func deliver(_ reply: ClientReply, to client: ClientAddress) {
        if backlogs[RoutingKey(client.routingID)] != nil {
            queue(reply, for: client)
            return
        }
        switch transmit(reply, to: client) {
        case .sent, .dropped: break
        case .full:
            core?.recordDeferredReply()
            queue(reply, for: client)
        }
    }

    private func queue(_ reply: ClientReply, for client: ClientAddress) {
        // A client that lets this many replies pile up is not reading them (an ActionClient's
        // window keeps its replies far below): drop rather than grow without bound.
        guard backlogs[RoutingKey(client.routingID), default: []].count < maxRepliesOwedPerClient else {
            core?.recordUndeliverableReply()
            return
        }
        backlogs[RoutingKey(client.routingID), default: []].append((reply, client))
    }

    private func transmit(_ reply: ClientReply, to client: ClientAddress) -> Transmission {
        outgoing.removeAll()
        outgoing.append(client.routingID)
        do {
            switch client.protocol {
            case .actionBus:
                reply.encode(into: &outgoing)
                try clients.sendBusMessage(outgoing, envelope: 1, options: .dontWait)
            case .majordomo(let dialect, let service):
                guard let body = MajordomoBridge.body(of: reply) else { return .sent }
                MajordomoRequest.encodeFinalReply(dialect: dialect, service: service, body: body, into: &outgoing)
                try clients.send(outgoing, options: .dontWait)
            }
            return .sent
        } catch let error as ZMQError where error.code == .wouldBlock {
            return .full
        } catch {
            // The client is gone (EHOSTUNREACH): it resends to whoever answers when it returns.
            core?.recordUndeliverableReply()
            logger.debug("reply to a client that is gone dropped", metadata: [
                "client.routingID": "\(RoutingIDText.of(client.routingID))", "reply": "\(Self.kind(of: reply))",
            ])
            return .dropped
        }
    }

    /// What a reply is, for a log line.
    private static func kind(of reply: ClientReply) -> String {
        switch reply {
        case .accepted(let requestIDs): "ACCEPTED of \(requestIDs.count)"
        case .outcome(let outcome): "OUTCOME of \(outcome.requestID)"
        case .outcomeBatch(let outcomes): "OUTCOME of \(outcomes.count)"
        case .stacks: "STACKS"
        case .pong: "PONG"
        case .stats: "STATS"
        case .features: "FEATURES"
        case .workers: "WORKERS"
        case .queues: "QUEUES"
        case .replayed: "REPLAY"
        case .notLeader: "NOT-LEADER"
        case .error(let requestID, let code, _): "ERROR \(code) for \(requestID)"
        }
    }
}
