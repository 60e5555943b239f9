import ActionTransport
import ActionWire
import Logging
import ZeroMQ

/// The client's I/O loop side: the DEALER to the coordinator, the SUB sockets of outcome
/// subscriptions, and every call waiting for its outcome.
final class ClientDriver: IOLoopDriver {
    private static let batchSize = 256

    private let runtime: IOLoopRuntime
    private let configuration: ActionClientConfiguration
    private let limits: WireLimits
    private let logger: Logger
    private let socket: Socket
    private var pending: [String: PendingCall] = [:]
    private var queries: [String: @Sendable (Result<[UInt8], ActionBusError>) -> Void] = [:]
    private var subscriptions: [Int: Subscription] = [:]
    private var incoming = Multipart()
    private var outgoing = Multipart()
    /// When the coordinator last said anything (or when the client started waiting on it).
    private var lastHeard = ContinuousClock.now
    private var lastPing = ContinuousClock.now
    private var coordinatorSilent = false
    /// The instance id of the coordinator that accepted the outstanding requests.
    private var coordinatorInstance: String?

    init(runtime: IOLoopRuntime, configuration: ActionClientConfiguration, logger: Logger) throws {
        self.runtime = runtime
        self.configuration = configuration
        self.limits = WireLimits(maxBodyBytes: configuration.maxMessageBytes)
        self.logger = logger
        socket = try runtime.makeBusDealer(
            connectingTo: configuration.coordinatorEndpoint, maxMessageBytes: configuration.maxMessageBytes,
            curve: configuration.curve
        )
        runtime.register(socket) { [unowned self] _ in read() }
        let sweep = min(configuration.resendInterval / 4, configuration.heartbeatInterval / 4, .milliseconds(50))
        runtime.schedule(after: sweep, repeating: sweep) { [unowned self] in sweepPending() }
    }

    func ioLoopWillStop(_ runtime: IOLoopRuntime) {
        for call in pending.values { call.deliver(.failure(.closed)) }
        pending.removeAll()
        for deliver in queries.values { deliver(.failure(.closed)) }
        queries.removeAll()
        for subscription in subscriptions.values {
            subscription.confirmed?(false)
            subscription.continuation.finish()
            subscription.socket.close()
        }
        subscriptions.removeAll()
    }

    // MARK: Performing

    func perform(_ call: PendingCall) {
        guard pending[call.request.requestID] == nil else {
            call.deliver(.failure(ActionBusError(code: "duplicateRequest", message: "request \(call.request.requestID) is already in flight")))
            return
        }
        let wasIdle = pending.isEmpty
        pending[call.request.requestID] = call
        send(.perform(call.request))
        if wasIdle {
            // Silence only counts while the client waits for something.
            let now = ContinuousClock.now
            lastHeard = now
            // The ping tells which coordinator instance answers; a client sending one request at
            // a time pings at most once per heartbeat interval, not once per request.
            if coordinatorInstance == nil || now - lastPing >= configuration.heartbeatInterval {
                lastPing = now
                send(.ping)
            }
        }
    }

    func cancel(_ requestID: String) {
        guard pending[requestID] != nil else { return }
        send(.cancel(requestID: requestID))
    }

    /// Sends a STACKS or STATS query and delivers its JSON answer, or `timedOut`.
    func query(_ message: ClientMessage, queryID: String, deliver: @escaping @Sendable (Result<[UInt8], ActionBusError>) -> Void) {
        queries[queryID] = deliver
        send(message)
        runtime.schedule(after: configuration.defaultTimeout) { [weak self] in
            guard let deliver = self?.queries.removeValue(forKey: queryID) else { return }
            deliver(.failure(ActionBusError(code: "timedOut", message: "no answer to the query; is the coordinator running?")))
        }
    }

    private func send(_ message: ClientMessage) {
        outgoing.removeAll()
        message.encode(into: &outgoing)
        do {
            try socket.send(outgoing, options: .dontWait)
        } catch {
            // Full or not connected: the sweep resends with the same identity.
            logger.debug("send to coordinator deferred", metadata: ["zmq.error": "\(error)"])
        }
    }

    private func sweepPending() {
        let now = ContinuousClock.now
        if !pending.isEmpty { watchCoordinator(now: now) }
        var expired: [String] = []
        for (requestID, call) in pending {
            if now >= call.deadline {
                expired.append(requestID)
            } else if !call.accepted, !coordinatorSilent, now - call.lastSent >= configuration.resendInterval {
                // Lazy Pirate: no ACCEPTED yet; resend with the same identity (it dedupes). While
                // the coordinator is silent only pings go out, so no backlog of copies builds up.
                pending[requestID]?.lastSent = now
                resend(call, now: now)
            } else if call.accepted, !call.polled, now >= call.deadline - configuration.answerGrace / 6 {
                // Past the request's deadline and the coordinator's grace, its answer should be
                // here; ask once more in case the reply was lost (it answers from its record).
                pending[requestID]?.polled = true
                resend(call, now: now)
            }
        }
        for requestID in expired {
            if let call = pending.removeValue(forKey: requestID) {
                call.deliver(.failure(.timedOut(requestID, after: call.timeout)))
            }
        }
    }

    /// Sends a request again with the same identity and the time it has left, so a coordinator
    /// that accepts it only now does not give it more time than its caller waits.
    private func resend(_ call: PendingCall, now: ContinuousClock.Instant) {
        var request = call.request
        if request.timeoutMilliseconds != 0 {
            request.timeoutMilliseconds = WireRequest.timeoutMilliseconds(call.deadline - configuration.answerGrace - now)
        }
        send(.perform(request))
    }

    /// Lazy Pirate across coordinator restarts: while requests are outstanding, ping every
    /// heartbeat interval (the PONG names the coordinator instance); when the coordinator stays
    /// silent past the liveness, treat every accepted request as unsent, so it is resent with
    /// the same identity as soon as the coordinator answers again. A restarted coordinator
    /// answers each from its journal (ACCEPTED, or the recorded outcome) instead of running it
    /// again.
    private func watchCoordinator(now: ContinuousClock.Instant) {
        if now - lastPing >= configuration.heartbeatInterval {
            lastPing = now
            send(.ping)
        }
        let silence = now - lastHeard
        guard !coordinatorSilent, silence >= configuration.heartbeatInterval * configuration.heartbeatLiveness else { return }
        coordinatorSilent = true
        let unsent = resendAccepted(now: now)
        logger.warning("coordinator silent; outstanding requests go again when it answers", metadata: [
            "silence": "\(silence)", "requests.accepted": "\(unsent)", "requests.pending": "\(pending.count)",
        ])
    }

    /// A PONG from a different coordinator instance means the coordinator restarted: it knows
    /// the accepted requests only if its journal kept them, so resend them all (same identities).
    private func noticeInstance(_ instance: String) {
        defer { coordinatorInstance = instance }
        guard let known = coordinatorInstance, known != instance else { return }
        let resent = resendAccepted(now: .now)
        logger.warning("coordinator restarted; resending accepted requests", metadata: ["requests.accepted": "\(resent)"])
    }

    /// Marks every accepted request unsent, so the sweep resends it now; returns how many.
    private func resendAccepted(now: ContinuousClock.Instant) -> Int {
        var resent = 0
        for (requestID, call) in pending where call.accepted {
            pending[requestID]?.accepted = false
            pending[requestID]?.lastSent = now - configuration.resendInterval
            resent += 1
        }
        return resent
    }

    private func read() {
        for _ in 0..<Self.batchSize {
            guard socket.receiveIfAvailable(into: &incoming) else { return }
            lastHeard = .now
            if coordinatorSilent {
                // Resend everything unanswered once, now that someone listens.
                coordinatorSilent = false
                let now = ContinuousClock.now
                for requestID in pending.keys { pending[requestID]?.lastSent = now - configuration.resendInterval }
                logger.info("coordinator answering again")
            }
            let reply: ClientReply
            do {
                reply = try ClientReply.decode(incoming, limits: limits)
            } catch {
                logger.warning("malformed reply from coordinator", metadata: ["wire.error": "\(error)"])
                continue
            }
            switch reply {
            case .accepted(let requestID):
                pending[requestID]?.accepted = true
            case .outcome(let outcome):
                pending.removeValue(forKey: outcome.requestID)?.deliver(.success(outcome))
            case .stacks(let queryID, let json), .stats(let queryID, let json):
                queries.removeValue(forKey: queryID)?(.success(json))
            case .pong(let instance):
                noticeInstance(instance)
            case .error(let requestID, let code, let message):
                logger.warning("coordinator refused a message", metadata: ["error.code": "\(code)", "error.message": "\(message)"])
                pending.removeValue(forKey: requestID)?.deliver(.failure(ActionBusError(code: code, message: message)))
            }
        }
    }

    // MARK: Subscriptions

    private var nextSubscriptionID = 0

    func subscribe(
        prefix: [UInt8], scope: OutcomeSequences.Scope, confirmationTimeout: Duration,
        continuation: AsyncStream<StreamedOutcome>.Continuation, confirmed: @escaping @Sendable (Bool) -> Void
    ) -> Int? {
        let socket: Socket
        do {
            socket = try runtime.makeSocket(.sub)
            try configuration.curve?.apply(to: socket)
            try socket.setOption(.maxMessageSize, Int64(configuration.maxMessageBytes) + 4096)
            try socket.setOption(.subscribe, prefix)
            try socket.connect(configuration.outcomesEndpoint)
        } catch {
            logger.error("subscription failed", metadata: ["zmq.error": "\(error)"])
            confirmed(false)
            continuation.finish()
            return nil
        }
        nextSubscriptionID += 1
        let id = nextSubscriptionID
        let subscription = Subscription(socket: socket, prefix: prefix, scope: scope, continuation: continuation, confirmed: confirmed)
        subscriptions[id] = subscription
        runtime.register(socket) { [unowned self] _ in readStream(subscription) }
        runtime.schedule(after: confirmationTimeout) {
            if let confirmed = subscription.confirmed {
                subscription.confirmed = nil
                confirmed(false)
            }
        }
        return id
    }

    func unsubscribe(_ id: Int) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        runtime.unregister(subscription.socket)
        subscription.socket.close()
        subscription.continuation.finish()
    }

    private func readStream(_ subscription: Subscription) {
        for _ in 0..<Self.batchSize {
            guard subscription.socket.receiveIfAvailable(into: &incoming) else { return }
            let message: StreamMessage
            do {
                message = try StreamMessage.decode(incoming, limits: limits)
            } catch {
                logger.warning("malformed stream message", metadata: ["wire.error": "\(error)"])
                continue
            }
            switch message {
            case .subscribed(let topic):
                if topic == subscription.prefix, let confirmed = subscription.confirmed {
                    subscription.confirmed = nil
                    confirmed(true)
                }
            case .event(_, let sequences, let outcome):
                let sequence = sequences[subscription.scope]
                let missed = subscription.lastSequence.map { sequence > $0 + 1 ? sequence - $0 - 1 : 0 } ?? 0
                subscription.lastSequence = sequence
                subscription.continuation.yield(StreamedOutcome(outcome: outcome, sequence: sequence, missed: missed))
            }
        }
    }
}
