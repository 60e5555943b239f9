import ActionTransport
import ActionWire
import DequeModule
import Logging
import ZeroMQ

/// The client's I/O loop side: the DEALER to the coordinator, the SUB sockets of outcome
/// subscriptions, and every call waiting for its outcome.
///
/// Flow control: at most `maxOutstanding` requests are sent and unanswered at once; the rest
/// wait here in submission order. Resends happen only on evidence of loss (a new coordinator
/// instance answers, or the connection dropped), never on a per-request timer nor on silence
/// alone, so a busy coordinator is never handed copies of work it already has. When to ping, to hold new
/// requests and to resend is decided by ``CoordinatorWatch``; this class carries it out.
final class ClientDriver: IOLoopDriver {
    private static let batchSize = 256

    let runtime: IOLoopRuntime
    let configuration: ActionClientConfiguration
    private let limits: WireLimits
    let logger: Logger
    @exclusivity(unchecked) var socket: Socket
    /// The DEALER's monitor: tells when its connection to the coordinator dropped (and, for a
    /// group, when nothing listens where it connects).
    @exclusivity(unchecked) var connectionEvents: Socket
    /// The coordinator, or the members of a coordinator group, and the one connected to.
    @exclusivity(unchecked) var members: MemberEndpoints
    @exclusivity(unchecked) var connections = 0
    @exclusivity(unchecked) var movedAt = ContinuousClock.now
    /// The move to the next member that is due (``moveToNextMemberSoon()``), if one is.
    @exclusivity(unchecked) var pendingMove: IOLoopTimerID?
    let clientID: String
    @exclusivity(unchecked) private var pending: PendingCalls
    /// Calls waiting for room in the window, in submission order (settled ones are skipped).
    @exclusivity(unchecked) private var unsent: Deque<PendingCall> = []
    /// Refused `unavailable`, calls wait until then to go again; nothing else goes meanwhile.
    @exclusivity(unchecked) private var retryPauseEnds: ContinuousClock.Instant?
    /// Pauses after `unavailable` since the last answer that was not one: each twice the last.
    @exclusivity(unchecked) private var unavailablePauses = 0
    @exclusivity(unchecked) private var outstanding = 0
    @exclusivity(unchecked) private var nextOrder: UInt64 = 0
    @exclusivity(unchecked) private var timers = ClientTimerLanes()
    /// Outcomes received and not yet acknowledged to the coordinator.
    @exclusivity(unchecked) private var acknowledgements: [String] = []
    @exclusivity(unchecked) private var queries: [String: PendingQuery] = [:]
    @exclusivity(unchecked) private var subscriptions: [Int: Subscription] = [:]
    @exclusivity(unchecked) private var incoming = Multipart()
    @exclusivity(unchecked) private var outgoing = PackedFrames()
    /// Pings, the coordinator's silence and instance, and when sent requests go again: this
    /// driver carries out what it decides.
    @exclusivity(unchecked) var watch: CoordinatorWatch

    init(runtime: IOLoopRuntime, configuration: ActionClientConfiguration, clientID: String, logger: Logger) throws {
        self.runtime = runtime
        self.configuration = configuration
        self.limits = WireLimits(maxBodyBytes: configuration.maxMessageBytes)
        self.watch = CoordinatorWatch(
            heartbeatInterval: configuration.heartbeatInterval, liveness: configuration.heartbeatLiveness,
            answerGrace: configuration.answerGrace, now: .now
        )
        self.pending = PendingCalls(clientID: clientID)
        self.logger = logger
        self.clientID = clientID
        members = MemberEndpoints(configuration.coordinatorEndpoint)
        (socket, connectionEvents) = try Self.connect(
            runtime: runtime, configuration: configuration, clientID: clientID, to: members.current, watchingRefusals: members.isGroup, connection: 0
        )
        registerConnection()
        let interval = CoordinatorWatch.sweepInterval(heartbeatInterval: configuration.heartbeatInterval)
        runtime.schedule(after: interval, repeating: interval) { [unowned self] in sweep() }
    }

    /// A DEALER to `endpoint` and its monitor. The client id is the connection's routing id, so
    /// a reconnected client is the same peer to the coordinator and its outcomes still reach it.
    static func connect(
        runtime: IOLoopRuntime, configuration: ActionClientConfiguration, clientID: String, to endpoint: String, watchingRefusals: Bool,
        connection: Int
    ) throws -> (socket: Socket, events: Socket) {
        let socket = try runtime.makeBusDealer(
            connectingTo: endpoint, maxMessageBytes: configuration.maxMessageBytes, routingID: Array(clientID.utf8), curve: configuration.curve
        )
        do {
            // A dropped connection loses what libzmq had already written to it: evidence of
            // loss, so what is outstanding goes again (the coordinator answers copies from its
            // table). A group member that refuses the connection is not the leader.
            let events = try runtime.monitorConnections(
                of: socket, name: "actionbus-client-\(clientID)-connection-\(connection)",
                events: watchingRefusals ? [.disconnected, .connectRetried] : .disconnected
            )
            return (socket, events)
        } catch {
            socket.close()
            throw error
        }
    }

    func registerConnection() {
        runtime.register(socket) { [unowned self] _ in read() }
        runtime.register(connectionEvents) { [unowned self] _ in readConnectionEvents() }
    }

    func ioLoopWillStop(_ runtime: IOLoopRuntime) {
        flushAcknowledgements()
        // One at a time, each out of the table before its caller hears of it.
        for call in pending.all where settle(call.request.requestID) != nil {
            call.deliver(.failure(.closed))
        }
        for query in queries.values { query.deliver(.failure(.closed)) }
        queries.removeAll()
        for subscription in subscriptions.values {
            subscription.confirmed?(false)
            subscription.sink.finish()
            subscription.socket.close()
        }
        subscriptions.removeAll()
        // Give the last ACK a moment to leave: closing with LINGER 0 would discard it.
        try? socket.setOption(.linger, 100)
    }

    // MARK: Performing

    func perform(_ call: PendingCall) {
        let requestID = call.request.requestID
        let wasIdle = pending.isEmpty
        // Checked and entered with one lookup.
        if pending.insert(call, for: requestID) != nil {
            call.deliver(.failure(ActionBusError(code: "duplicateRequest", message: "request \(requestID) is already in flight")))
            return
        }
        let now = ContinuousClock.now
        if wasIdle, watch.startedWaiting(at: now) {
            send(.ping)
        }
        nextOrder += 1
        call.order = nextOrder
        // One timer per call at a time: the last chance, which then sets the deadline.
        let lastChance = watch.lastChance(before: call.deadline)
        timers.insert(ClientTimer(at: min(lastChance, call.deadline), call: call, kind: lastChance > now ? .lastChance : .deadline))
        compactTimers()
        // Sent at the end of this turn of the loop, with every other call submitted meanwhile.
        unsent.append(call)
    }

    func ioLoopDidFinishTurn(_ runtime: IOLoopRuntime) {
        if !unsent.isEmpty && outstanding < configuration.maxOutstanding { fillWindow(now: .now) }
    }

    func cancel(_ requestID: String) {
        guard let call = pending[requestID] else { return }
        guard call.isOutstanding else {
            // Not sent yet (it waits for the end of this turn, or for room in the window): it
            // never leaves, and the caller gets what the coordinator would have answered.
            settle(requestID)
            call.deliver(.success(.failure(for: call.request, code: BusErrorCode.cancelled,
                                           message: "\(call.request.action) was cancelled by its caller before it was sent")))
            return
        }
        send(.cancel(requestID: requestID))
    }

    /// Sends a STACKS or STATS query and delivers its JSON answer, or `timedOut`.
    func query(
        _ message: ClientMessage, queryID: String, timeout: Duration?, deliver: @escaping @Sendable (Result<[UInt8], ActionBusError>) -> Void
    ) {
        queries[queryID] = PendingQuery(message: message, deliver: deliver)
        send(message)
        let timeout = timeout ?? configuration.defaultTimeout
        runtime.schedule(after: timeout) { [weak self] in
            guard let self, let query = self.queries.removeValue(forKey: queryID) else { return }
            query.deliver(.failure(.unreachable(self.configuration.coordinatorEndpoint, after: timeout)))
        }
    }

    /// Sends waiting requests, oldest first, while the window has room and the coordinator
    /// answers.
    ///
    /// Requests ready together go in one PERFORM (within ``WireBatching``'s limits), in order.
    private func fillWindow(now: ContinuousClock.Instant) {
        guard !watch.holdsNewRequests, retryPauseEnds.map({ now >= $0 }) ?? true else { return }
        retryPauseEnds = nil
        while outstanding < configuration.maxOutstanding, !unsent.isEmpty {
            var batch: [PendingCall] = []
            var bytes = 0
            while let call = unsent.first, outstanding + batch.count < configuration.maxOutstanding {
                if call.isSettled || call.isOutstanding {
                    unsent.removeFirst()
                    continue
                }
                if WireBatching.isFull(count: batch.count, bytes: bytes, adding: call.request.input.count) { break }
                batch.append(unsent.removeFirst())
                bytes += call.request.input.count
            }
            guard !batch.isEmpty else { return }
            let requests = batch.map { request($0, sentAt: now) }
            guard send(requests.count == 1 ? .perform(requests[0]) : .performBatch(requests)) else {
                // Full: back in front, in order; the sweep tries again.
                unsent.prepend(contentsOf: batch)
                return
            }
            for call in batch { call.isOutstanding = true }
            outstanding += batch.count
        }
    }

    /// The request with the time its caller still waits (less the grace for the answer), so a
    /// coordinator that gets it late does not give it more time than that.
    private func request(_ call: PendingCall, sentAt now: ContinuousClock.Instant) -> WireRequest {
        var request = call.request
        if request.timeoutMilliseconds != 0 {
            request.timeoutMilliseconds = WireRequest.timeoutMilliseconds(call.deadline - configuration.answerGrace - now)
        }
        return request
    }

    @discardableResult
    func send(_ message: ClientMessage) -> Bool {
        outgoing.removeAll()
        message.encode(into: &outgoing)
        do {
            try socket.sendBusMessage(outgoing, options: .dontWait)
            return true
        } catch {
            logger.debug("send to coordinator deferred", metadata: ["zmq.error": "\(error)"])
            return false
        }
    }

    private func sweep() {
        let now = ContinuousClock.now
        watchCoordinator(now: now)
        while let timer = timers.popDue(now: now) {
            let call = timer.call
            guard !call.isSettled else { continue }
            switch timer.kind {
            case .deadline:
                settle(call.request.requestID)
                call.deliver(.failure(deadlineError(call, now: now)))
            case .lastChance:
                lastChance(call, now: now)
                timers.insert(ClientTimer(at: call.deadline, call: call, kind: .deadline))
            }
        }
        flushAcknowledgements()
        fillWindow(now: now)
    }

    /// Why `call` ends with no outcome at its deadline: no coordinator ever answered; the
    /// coordinator stopped answering (it may have exited) after it took the call; or it answers,
    /// but nothing finished the call in time.
    private func deadlineError(_ call: PendingCall, now: ContinuousClock.Instant) -> ActionBusError {
        if watch.instance == nil { return .unreachable(configuration.coordinatorEndpoint, after: call.timeout) }
        if let silence = watch.silence(at: now) {
            return .stoppedAnswering(call.request.requestID, accepted: call.isAccepted, lastHeard: silence, after: call.timeout)
        }
        return .timedOut(call.request.requestID, after: call.timeout)
    }

    /// Timers of answered calls stay in their lanes until their time; when they outnumber the
    /// calls waiting, they are dropped at once (amortised O(1) per call), so the timers follow
    /// what is pending, not throughput × timeout.
    private func compactTimers() {
        guard timers.count > 2 * pending.count + 1024 else { return }
        timers.removeAll { $0.call.isSettled }
    }

    /// Past the request's deadline and the coordinator's grace its answer should be here; ask
    /// once more in case the reply was lost (the coordinator answers from its record).
    private func lastChance(_ call: PendingCall, now: ContinuousClock.Instant) {
        guard call.isOutstanding, !call.polled, !watch.holdsNewRequests else { return }
        call.polled = true
        send(.perform(request(call, sentAt: now)))
    }

    /// Lazy Pirate across coordinator restarts, as ``CoordinatorWatch`` decides: while requests
    /// are outstanding, ping a quiet coordinator every heartbeat interval (the PONG names its
    /// instance); past the liveness, send nothing new until it answers.
    private func watchCoordinator(now: ContinuousClock.Instant) {
        // A query waits for an answer as a call does.
        let waiting = !pending.isEmpty || !queries.isEmpty
        if members.isGroup, now - movedAt >= configuration.heartbeatInterval * 2,
           watch.shouldTryAnotherMember(at: now, waiting: waiting) {
            return moveToNextMember(now: now)
        }
        let action = watch.sweep(at: now, waiting: waiting)
        if action.sendPing { send(.ping) }
        if let silence = action.fellSilentAfter {
            logger.warning("coordinator silent; new requests wait until it answers, and sent ones go again if it restarted", metadata: [
                "silence": "\(silence)", "requests.outstanding": "\(outstanding)", "requests.pending": "\(pending.count)",
            ])
        }
    }

    /// Sends every sent, unanswered request again when ``CoordinatorWatch`` sees evidence of loss.
    private func carryOut(_ action: CoordinatorWatch.LossAction) {
        guard case .resendOutstanding(let evidence) = action else { return }
        let resent = takeBackOutstanding()
        switch evidence {
        case .restarted:
            // They go at the end of this turn, with whatever else waits.
            logger.warning("coordinator restarted; resending outstanding requests", metadata: ["requests.outstanding": "\(resent)"])
        case .connectionDropped:
            logger.warning("connection to the coordinator dropped; resending outstanding requests", metadata: ["requests.outstanding": "\(resent)"])
            fillWindow(now: .now)
        }
        resendQueries()
    }

    /// Asks every unanswered query again: the member or connection it went to may never answer.
    func resendQueries() {
        for query in queries.values { send(query.message) }
    }

    /// Puts every sent, unanswered request back at the head of the queue, in submission order;
    /// returns how many.
    func takeBackOutstanding() -> Int {
        let taken = pending.all.filter(\.isOutstanding).sorted { $0.order < $1.order }
        for call in taken { call.isOutstanding = false }
        outstanding = 0
        unsent.insert(contentsOf: taken, at: 0)
        return taken.count
    }

    private func readConnectionEvents() {
        let events = connectionEvents.receiveMonitorEvents(using: &incoming, limit: Self.batchSize)
        if members.isGroup, !events.isEmpty {
            return moveToNextMemberSoon()
        }
        guard events.contains(.disconnected) else { return }
        carryOut(watch.connectionDropped(outstanding: outstanding))
    }

    private func flushAcknowledgements() {
        while !acknowledgements.isEmpty {
            let batch = Array(acknowledgements.prefix(limits.maxRequestIDsPerMessage))
            // Lost only if the connection drops, and then the coordinator keeps the outcomes
            // until their deadlines pass: an acknowledgement is an optimisation, not a promise.
            send(.acknowledge(requestIDs: batch))
            acknowledgements.removeFirst(batch.count)
        }
    }

    private func read() {
        var heard = false
        for _ in 0..<Self.batchSize {
            guard socket.receiveBusMessageIfAvailable(into: &incoming) else { break }
            if members.currentIsDeposed { continue }
            heard = true
            if incoming.count > 1, (try? WireHeader.command(in: incoming[0])) == .outcome {
                // Each outcome is decoded as it is delivered: no array of them. One that does not
                // decode is logged; the others still arrive.
                let frames = incoming.packedFrames
                var names = RepeatedNames()
                for index in 1..<frames.count {
                    do {
                        received(try WireOutcome.unpack(frames.frame(at: index), command: .outcome, limits: limits, names: &names))
                    } catch {
                        logger.warning("malformed outcome from coordinator", metadata: ["wire.error": "\(error)"])
                    }
                }
                continue
            }
            let reply: ClientReply
            do {
                reply = try ClientReply.decode(incoming.packedFrames, limits: limits)
            } catch {
                logger.warning("malformed reply from coordinator", metadata: ["wire.error": "\(error)"])
                continue
            }
            if case .notLeader = reply {
                // Handled below.
            } else if let move = pendingMove {
                // The member answers after all (it refused while it was still binding): stay.
                runtime.cancel(move)
                pendingMove = nil
                members.stay()
            }
            switch reply {
            case .accepted(let requestIDs):
                unavailablePauses = 0
                // Recorded (on disk, with a journal); the outcome follows. Kept only to say so
                // should the coordinator stop answering before it comes.
                for requestID in requestIDs { pending[requestID]?.isAccepted = true }
            case .outcome(let outcome):
                received(outcome)
            case .outcomeBatch(let outcomes):
                for outcome in outcomes { received(outcome) }
            case .stacks(let queryID, let json), .stats(let queryID, let json), .features(let queryID, let json),
                 .workers(let queryID, let json), .queues(let queryID, let json), .replayed(let queryID, let json):
                queries.removeValue(forKey: queryID)?.deliver(.success(json))
            case .pong(let instance, let epoch):
                guard members.accept(epoch: epoch) else {
                    refuseDeposedMember(epoch: epoch)
                    continue
                }
                carryOut(watch.pongReceived(instance: instance))
            case .notLeader(let leader):
                notLeaderReceived(naming: leader)
            case .error(let requestID, let code, let message):
                logger.warning("coordinator refused a message", metadata: ["error.code": "\(code)", "error.message": "\(message)"])
                if let call = settle(requestID) {
                    call.deliver(.failure(ActionBusError(code: code, message: message)))
                } else if let query = queries.removeValue(forKey: requestID) {
                    // A query the coordinator refused names its query id.
                    query.deliver(.failure(ActionBusError(code: code, message: message)))
                }
            }
        }
        guard heard else { return }
        if watch.heard(at: .now) {
            logger.info("coordinator answering again")
        }
        if acknowledgements.count >= limits.maxRequestIDsPerMessage { flushAcknowledgements() }
        // The window's room goes to waiting requests at the end of this turn.
    }

    private func received(_ outcome: WireOutcome) {
        // `failureCode`, not `result`: `result` copies a forwarded success's output.
        if outcome.failureCode == BusErrorCode.unavailable {
            if retryLater(outcome.requestID) { return }
        } else {
            unavailablePauses = 0
        }
        acknowledgements.append(outcome.requestID)
        settle(outcome.requestID)?.deliver(.success(outcome))
    }

    /// A refusal `unavailable` (too few standbys in sync: a group's leader just elected, or a
    /// standby restarting) recorded nothing, so the call goes again after a pause, as long as
    /// its deadline leaves room; returns whether it will. The first pause is short (a new
    /// leader's standby catches up within tens of milliseconds); each one after doubles, up to
    /// ``unavailableRetryPauseLimit``, until an answer that is not a refusal.
    private func retryLater(_ requestID: String) -> Bool {
        let now = ContinuousClock.now
        // The refusals of one batch share the pause that the first of them began.
        let openPause = retryPauseEnds.flatMap { $0 > now ? $0 : nil }
        let pauseEnds = openPause ?? now + Self.unavailableRetryPause(after: unavailablePauses)
        guard let call = pending[requestID], pauseEnds + (pauseEnds - now) < call.deadline else { return false }
        if call.isOutstanding {
            call.isOutstanding = false
            outstanding -= 1
        }
        // Back in submission order, before what was submitted after it, and nothing goes until
        // the pause ends (the coordinator refuses it all meanwhile): a session's later request
        // must not overtake a refused earlier one.
        unsent.insert(call, at: unsent.firstIndex { $0.order > call.order } ?? unsent.endIndex)
        if openPause == nil {
            unavailablePauses += 1
            retryPauseEnds = pauseEnds
            runtime.schedule(after: pauseEnds - now) { [unowned self] in fillWindow(now: .now) }
        }
        return true
    }

    static let unavailableRetryPauseLimit: Duration = .milliseconds(200)

    /// The pause after `pauses` pauses in a row: 25 ms, then twice the last, up to the limit.
    static func unavailableRetryPause(after pauses: Int) -> Duration {
        min(.milliseconds(25) * (1 << min(pauses, 4)), unavailableRetryPauseLimit)
    }

    /// Takes the call for `requestID` out of the table (answered, failed or timed out) and
    /// frees its place in the window.
    @discardableResult
    private func settle(_ requestID: String) -> PendingCall? {
        guard let call = pending.remove(requestID) else { return nil }
        call.isSettled = true
        if call.isOutstanding { outstanding -= 1 }
        return call
    }

    // MARK: Subscriptions

    @exclusivity(unchecked) private var nextSubscriptionID = 0

    func subscribe(
        prefix: [UInt8], scope: OutcomeSequences.Scope, confirmationTimeout: Duration,
        sink: SubscriptionSink, confirmed: @escaping @Sendable (Bool) -> Void
    ) -> Int? {
        let socket: Socket
        do {
            socket = try runtime.makeSocket(.sub)
            try configuration.curve?.apply(to: socket)
            try socket.setOption(.maxMessageSize, WirePacking.maxFrameBytes(maxMessageBytes: configuration.maxMessageBytes))
            try socket.setOption(.subscribe, prefix)
            // A group's members: only the leader publishes, and a SUB hears whoever does.
            for endpoint in MemberEndpoints(configuration.outcomesEndpoint).all { try socket.connect(endpoint) }
        } catch {
            logger.error("subscription failed", metadata: ["zmq.error": "\(error)"])
            confirmed(false)
            sink.finish()
            return nil
        }
        nextSubscriptionID += 1
        let id = nextSubscriptionID
        let subscription = Subscription(socket: socket, prefix: prefix, scope: scope, sink: sink, confirmed: confirmed)
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
        subscription.sink.finish()
    }

    /// Hands a run of events on to the subscription's stream: one by one, or as one batch.
    private func received(_ events: [OutcomeEvent], on subscription: Subscription) {
        switch subscription.sink {
        case .outcomes(let continuation):
            for event in events { continuation.yield(streamed(event, on: subscription)) }
        case .outcomeBatches(let continuation):
            continuation.yield(events.map { streamed($0, on: subscription) })
        case .resumable(let continuation):
            continuation.yield(.outcomes(events.map { streamed($0, on: subscription) }))
        case .began:
            break
        }
    }

    /// The event as its subscriber sees it: numbered in its scope, with the gap before it.
    private func streamed(_ event: OutcomeEvent, on subscription: Subscription) -> StreamedOutcome {
        let sequence = event.sequences[subscription.scope]
        let missed = subscription.lastSequence.map { sequence > $0 + 1 ? sequence - $0 - 1 : 0 } ?? 0
        subscription.lastSequence = sequence
        var streamed = StreamedOutcome(outcome: event.outcome, sequence: sequence, missed: missed)
        streamed.position = event.sequences[.all]
        streamed.coordinatorRestarted = subscription.restartPending
        subscription.restartPending = false
        return streamed
    }

    private func readStream(_ subscription: Subscription) {
        for _ in 0..<Self.batchSize {
            guard subscription.socket.receiveBusMessageIfAvailable(into: &incoming, envelope: 1) else { return }
            let message: StreamMessage
            do {
                message = try StreamMessage.decode(incoming.packedFrames, limits: limits)
            } catch {
                logger.warning("malformed stream message", metadata: ["wire.error": "\(error)"])
                continue
            }
            switch message {
            case .subscribed(let topic, let instance):
                guard topic == subscription.prefix else { break }
                if let known = subscription.coordinatorInstance, known != instance {
                    // Resubscribed to a restarted coordinator: its numbering starts afresh.
                    subscription.restartPending = true
                    subscription.lastSequence = nil
                }
                if subscription.coordinatorInstance != instance, case .resumable(let continuation) = subscription.sink {
                    continuation.yield(.confirmed(instance: instance))
                }
                subscription.coordinatorInstance = instance
                if let confirmed = subscription.confirmed {
                    subscription.confirmed = nil
                    confirmed(true)
                }
            case .event(_, let sequences, let outcome):
                received([OutcomeEvent(sequences: sequences, outcome: outcome)], on: subscription)
            case .eventBatch(_, let events):
                received(events, on: subscription)
            case .began(_, let events):
                guard case .began(let continuation) = subscription.sink else { break }
                for event in events {
                    continuation.yield(StreamedBegan(event: event, coordinatorRestarted: subscription.restartPending))
                    subscription.restartPending = false
                }
            }
        }
    }
}
