import ActionJournal
import ActionTransport
import ActionWire
import DequeModule
import Foundation
import Logging
import ZeroMQ

/// The coordinator's I/O loop side: owns the three sockets and the journal, decodes what
/// arrives, feeds the core, and writes what the core decides.
///
/// Client replies wait in ``held`` until the end of the batch of messages that caused them;
/// with a journal, until that batch's records are durable too (group commit: one fdatasync per
/// batch, not per request), which the ``JournalWriter`` does on its own thread while this loop
/// goes on reading and routing. The ACCEPTEDs of a batch go out as one message per
/// client. A reply that finds its client's queue full is kept, in order, in that client's
/// backlog and sent when there is room: a live client never loses a reply to a high-water mark.
final class CoordinatorDriver: IOLoopDriver, CoordinatorOutbox {
    /// Messages read from one socket before the loop looks at the others.
    private static let batchSize = 256
    /// About how many records one read of a socket takes before the loop turns: messages carry
    /// up to 1 024 each, and a burst of them must not keep the timers and the other sockets
    /// waiting (on a starved core, 256 full messages took seconds).
    private static let recordsPerRead = 8_192
    private static let maxConfirmationsPerSecond = 1_000

    let clients: Socket
    let workers: Socket
    let outcomes: Socket
    let endpoints: CoordinatorEndpoints
    private let configuration: CoordinatorConfiguration
    private let limits: WireLimits
    private let logger: Logger
    @exclusivity(unchecked) private(set) var core: CoordinatorCore!
    private let journalWriter: JournalWriter?
    private unowned let loop: IOLoop<CoordinatorDriver>
    /// The records of the batch being handled, for the journal.
    @exclusivity(unchecked) private var records: [JournalRecord] = []
    /// What the batch being handled will send once its records are durable.
    @exclusivity(unchecked) private var held = HeldOutput()
    /// Where each client's ACCEPTEDs of this batch are in `held.acceptances`.
    @exclusivity(unchecked) private var acceptanceIndex: [ClientAddress: Int] = [:]
    /// Recorded acceptances waiting out `acceptanceDelay`, oldest first: when due, ACCEPTED
    /// goes for those of their requests that still have no outcome.
    @exclusivity(unchecked) private var deferredAcceptances: Deque<(client: ClientAddress, requestIDs: [String], due: ContinuousClock.Instant)> = []
    @exclusivity(unchecked) private var compactionRunning = false
    /// Replies waiting for room in their client's queue, per routing id, in order.
    @exclusivity(unchecked) private var backlogs: [RoutingKey: Deque<(reply: ClientReply, client: ClientAddress)>] = [:]
    /// Topic prefixes someone subscribes to (XPUB tells each new one, and each one nobody
    /// subscribes to any more).
    @exclusivity(unchecked) private var subscribedTopics: Set<[UInt8]> = []
    private let runtime: IOLoopRuntime
    /// Told once when the coordinator must stop on its own (the journal failed).
    private let onFatalError: @Sendable (any Error) -> Void
    @exclusivity(unchecked) private var stoppedByFailure = false
    @exclusivity(unchecked) private var lastDropWarning: ContinuousClock.Instant?
    @exclusivity(unchecked) private var incoming = Multipart()
    @exclusivity(unchecked) private var clientRoutingIDs = RoutingIDCache()
    @exclusivity(unchecked) private var confirmationWindowStart = ContinuousClock.now
    @exclusivity(unchecked) private var confirmationsInWindow = 0
    /// The CURVE key of the client message being handled (`nil` without CURVE).
    @exclusivity(unchecked) private var curveKey: String?
    @exclusivity(unchecked) private var workerRoutingIDs = RoutingIDCache()
    @exclusivity(unchecked) private var outgoing = PackedFrames()
    /// Requests chosen for each worker during this batch, sent together when it ends.
    @exclusivity(unchecked) private var requestBatches: [WorkerID: GatheredRecords<OutgoingRequest>] = [:]
    /// The batch a request was added to last (while it is in `requestBatches`): dispatch sends
    /// runs of requests to one worker, found without hashing its routing id for each.
    @exclusivity(unchecked) private var lastRequestBatch: (worker: WorkerID, gathered: GatheredRecords<OutgoingRequest>)?
    /// Requests whose message could not leave, for the core at the end of the batch.
    @exclusivity(unchecked) private var undeliveredRequests: [(worker: WorkerID, requestIDs: [String])] = []
    /// Workers a send failed to in the batch being handled.
    @exclusivity(unchecked) private var unreachableThisBatch: Set<WorkerID> = []
    /// Registered workers that speak Majordomo (MDP/0.1, RFC 7, or MDP/0.2, RFC 18) rather than ABP.
    @exclusivity(unchecked) private var majordomoWorkers: [WorkerID: MajordomoWorkerVersion] = [:]
    /// The Majordomo peer whose message is being handled: what the core answers it (DISCONNECT
    /// to an unknown worker) is framed in its version, without keeping anything for it.
    @exclusivity(unchecked) private var majordomoSender: (id: WorkerID, version: MajordomoWorkerVersion)?
    /// The run of events being gathered for each kind of topic: action-first, session-first.
    private let eventRuns = [GatheredRecords<OutcomeEvent>(), GatheredRecords<OutcomeEvent>()]
    @exclusivity(unchecked) private var eventRunTopics: [[UInt8]] = [[], []]
    /// Outcomes for each ActionBus client while a batch's replies go out, one message each.
    @exclusivity(unchecked) private var outcomeBatches: [RoutingKey: (client: ClientAddress, outcomes: GatheredRecords<WireOutcome>)] = [:]

    init(
        runtime: IOLoopRuntime, loop: IOLoop<CoordinatorDriver>, configuration: CoordinatorConfiguration, logger: Logger,
        onFatalError: @escaping @Sendable (any Error) -> Void
    ) throws {
        self.configuration = configuration
        self.runtime = runtime
        self.onFatalError = onFatalError
        self.loop = loop
        let journalFile = try configuration.dataDirectory.map {
            try RequestJournal(directory: $0, compactionBytes: configuration.journalCompactionBytes)
        }
        // Its recovery is read below, here, before the writer's thread ever touches it.
        journalWriter = journalFile.map {
            // Weak: the writer's thread may end a commit after the loop has gone.
            JournalWriter(journal: $0, recordsMetrics: configuration.recordsMetrics) { [weak loop] in
                loop?.execute { driver, _ in driver.releaseCommitted() }
            }
        }
        self.limits = WireLimits(maxBodyBytes: configuration.maxMessageBytes)
        self.logger = logger
        clients = try runtime.makeSocket(.router)
        workers = try runtime.makeSocket(.router)
        outcomes = try runtime.makeSocket(.xpub)
        do {
            for router in [clients, workers] {
                try router.setOption(.routerMandatory, true)
                // Clients and workers keep their routing ids across reconnections: the new
                // connection takes the identity over from the dead one.
                try router.setOption(.routerHandover, true)
                try router.setOption(.maxMessageSize, WirePacking.maxFrameBytes(maxMessageBytes: configuration.maxMessageBytes))
                try router.setOption(.sendHighWaterMark, configuration.peerHighWaterMark)
                try router.setOption(.receiveHighWaterMark, configuration.peerHighWaterMark)
            }
            try outcomes.setOption(.xpubVerbose, true)
            try outcomes.setOption(.xpubNoDrop, true)
            try outcomes.setOption(.sendHighWaterMark, configuration.outcomeHighWaterMark)
            try outcomes.setOption(.maxMessageSize, 4096)
            if let curve = configuration.curve {
                try curve.apply(to: clients, domain: CurveServerKeys.Domain.clients)
                try curve.apply(to: workers, domain: CurveServerKeys.Domain.workers)
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
            journalFile?.close()
            throw error
        }
        core = CoordinatorCore(configuration: configuration, outbox: self, logger: logger)
        if let journalFile {
            // Nothing is read from the sockets before the core holds what the journal does.
            let recovery = journalFile.recovery
            core.restore(recovery, now: .now)
            logger.info("journal opened", metadata: [
                "journal.directory": "\(journalFile.directory)", "journal.bytes": "\(journalFile.fileBytes)",
                "journal.unfinished": "\(recovery.unfinished.count)", "journal.finished": "\(recovery.finished.count)",
            ])
            if recovery.skippedRecords > 0 {
                logger.warning("journal had whole records that do not decode (names the wire rules reject), skipped", metadata: [
                    "journal.skippedRecords": "\(recovery.skippedRecords)",
                ])
            }
            if recovery.discardedBytes > 0 {
                logger.warning("journal had a torn end, cut off", metadata: ["journal.discardedBytes": "\(recovery.discardedBytes)"])
            }
            journalFile.releaseRecovery()
        }
        runtime.register(clients) { [unowned self] _ in
            readClients()
            flush()
        }
        runtime.register(workers) { [unowned self] _ in
            readWorkers()
            flush()
        }
        runtime.register(outcomes) { [unowned self] _ in
            readSubscriptions()
            flush()
        }
        let tickInterval = min(configuration.heartbeatInterval / 4, .milliseconds(100))
        var lastTick = ContinuousClock.now
        runtime.schedule(after: tickInterval, repeating: tickInterval) { [unowned self] in
            let now = ContinuousClock.now
            // A tick far later than scheduled means this thread was held up, not the workers.
            let late = now - lastTick - tickInterval
            if late > configuration.heartbeatInterval { core.excuseStall(late, now: now) }
            lastTick = now
            core.tick(now: now)
            sendDueAcceptances(now: now)
            flush()
        }
    }

    func ioLoopWillStop(_ runtime: IOLoopRuntime) {
        // The loop reads nothing more: commit what was decided, answer it, release the directory.
        flush()
        guard let journalWriter, let directory = configuration.dataDirectory else { return }
        journalWriter.waitForAll()
        releaseCommitted()
        journalWriter.close()
        if !stoppedByFailure {
            logger.info("journal flushed and closed", metadata: ["journal.directory": "\(directory)"])
        }
    }

    // MARK: Journal

    /// Ends a batch: without a journal, sends what it decided; with one, hands its records to
    /// the journal's thread, and what waited for them follows once they are durable. A batch
    /// without records still goes through the journal's thread while others are there, so
    /// replies keep their order.
    private func flush() {
        guard !stoppedByFailure else { return }
        sendRequestBatches()
        let output = held
        held = HeldOutput()
        acceptanceIndex.removeAll(keepingCapacity: true)
        sendEventRuns()
        // Nothing decided (a tick, a batch of heartbeats): nothing to commit or keep in order.
        if records.isEmpty && output.isEmpty {
            drainBacklogs()
            return
        }
        if let journalWriter, !records.isEmpty || journalWriter.inFlight > 0 {
            journalWriter.commit(records, releasing: output)
            records.removeAll(keepingCapacity: true)
        } else {
            release(output)
        }
        drainBacklogs()
    }

    /// Sends what waited for the journal, batch by batch in commit order; stops at a failure.
    private func releaseCommitted() {
        guard let journalWriter else { return }
        for batch in journalWriter.takeFinished() where !stoppedByFailure {
            if let failure = batch.failure {
                stopAfterJournalFailure(failure, withheld: batch.output.replies.count + batch.output.acceptances.count)
                return
            }
            release(batch.output)
            if batch.needsCompaction { compactJournal() }
        }
        drainBacklogs()
    }

    private func release(_ output: HeldOutput) {
        for event in output.events {
            gather(event)
        }
        sendEventRuns()
        // Acceptances first: a client hears ACCEPTED, if at all, before the OUTCOME of the same
        // request. Deferred ones go only for requests still waiting when they are due.
        if configuration.acceptanceDelay == .zero {
            for (client, requestIDs) in output.acceptances { deliverAcceptances(requestIDs, to: client) }
        } else if !output.acceptances.isEmpty {
            let due = ContinuousClock.now + configuration.acceptanceDelay
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

    private func deliverAcceptances(_ requestIDs: [String], to client: ClientAddress) {
        var start = 0
        while start < requestIDs.count {
            let end = min(start + limits.maxRequestIDsPerMessage, requestIDs.count)
            deliver(.accepted(requestIDs: Array(requestIDs[start..<end])), to: client)
            start = end
        }
    }

    /// ACCEPTED for the deferred acceptances that are due, naming only requests without an
    /// outcome: their records were committed before they were deferred, so nothing waits.
    private func sendDueAcceptances(now: ContinuousClock.Instant) {
        while let first = deferredAcceptances.first, first.due <= now {
            deferredAcceptances.removeFirst()
            let waiting = first.requestIDs.filter(core.awaitsOutcome)
            if !waiting.isEmpty { deliverAcceptances(waiting, to: first.client) }
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

    /// Fail-stop: what this batch decided is not on disk, so none of it may be acknowledged,
    /// and the journal cannot be trusted to take more. The coordinator stops reading and ends;
    /// clients resend to its successor, which resumes from what the disk really holds.
    private func stopAfterJournalFailure(_ error: any Error, withheld: Int) {
        stoppedByFailure = true
        core.recordJournalFailure()
        logger.critical("journal write failed; stopping so that nothing unrecorded is acknowledged", metadata: [
            "journal.error": "\(error)", "replies.withheld": "\(withheld)",
        ])
        held = HeldOutput()
        for socket in [clients, workers, outcomes] { runtime.unregister(socket) }
        onFatalError(error)
    }

    /// Takes the snapshot of what is live here, on the loop, and has the journal's thread write
    /// it: records handed over before it are in the old file and their effect in the snapshot;
    /// records handed over after it go to the new file.
    private func compactJournal() {
        guard let journalWriter, !compactionRunning else { return }
        compactionRunning = true
        let started = ContinuousClock.now
        let logger = self.logger, loop = self.loop
        journalWriter.compact(core.encodedJournalSnapshot(now: started)) { result in
            switch result {
            case .success(let sizes):
                logger.info("journal compacted", metadata: [
                    "journal.bytesBefore": "\(sizes.before)", "journal.bytesAfter": "\(sizes.after)",
                    "journal.duration": "\(ContinuousClock.now - started)",
                ])
            case .failure(let error):
                logger.error("journal compaction failed; appending to the old file, next attempt once it has grown by the threshold again", metadata: ["journal.error": "\(error)"])
            }
            loop.execute { driver, _ in driver.compactionRunning = false }
        }
    }

    func journal(_ record: @autoclosure () -> JournalRecord) {
        if journalWriter != nil { records.append(record()) }
    }

    // MARK: Reading

    private func readClients() {
        var records = 0
        for _ in 0..<Self.batchSize {
            guard records < Self.recordsPerRead else { return }
            if configuration.curve != nil {
                // The key each message's connection was authenticated with: requests belong to it.
                guard clients.receiveBusMessageIfAvailable(into: &incoming, envelope: 1, userID: &curveKey) else { return }
            } else {
                guard clients.receiveBusMessageIfAvailable(into: &incoming, envelope: 1) else { return }
            }
            records += incoming.count - 1
            handleClientMessage()
        }
    }

    private func handleClientMessage() {
        guard incoming.count >= 2 else {
            core.recordMalformed(fromWorker: false)
            return
        }
        let routingID = clientRoutingIDs.intern(incoming[0])
        let frames = incoming.packedFrames
        if MajordomoRequest.matches(frames, at: 1) {
            handleMajordomo(routingID: routingID)
            return
        }
        let client = ClientAddress(routingID: routingID, curveKey: curveKey)
        let command = incoming.count > 2 ? try? WireHeader.command(in: incoming[1]) : nil
        if command == .perform {
            // Each request is decoded as the core takes it: no array of them. One that does not
            // decode is refused on its own; the others are taken.
            core.receivedPerforms(count: frames.count - 2, from: client, now: .now) { take in
                var names = RepeatedNames()
                for index in 2..<frames.count {
                    do throws(WireError) {
                        // The input stays in the message: the pending request copies it from there.
                        let (request, input) = try WireRequest.unpackLeavingInput(
                            frames.frame(at: index), command: .perform, limits: limits, names: &names
                        )
                        take(request, input)
                    } catch {
                        refuse(frames.frame(at: index), error, to: client)
                    }
                }
            }
            return
        }
        if command == .acknowledge, frames.count - 2 <= limits.maxRequestIDsPerMessage,
           (2..<frames.count).allSatisfy({ frames.frame(at: $0).withUnsafeBytes { WireName.isValid($0, limits: limits) } }) {
            // Taken as the bytes they came in. One that is not a name sends the whole message
            // through the decoder below, which answers with the error, as it always did.
            core.receivedAcknowledgements(from: client) { take in
                for index in 2..<frames.count { frames.frame(at: index).withUnsafeBytes(take) }
            }
            return
        }
        do {
            let message = try ClientMessage.decode(frames, at: 1, limits: limits)
            core.received(message, from: client, now: .now)
        } catch {
            // Answer an ActionBus peer so its user sees why; ignore anything else (it may be noise).
            guard WireHeader.hasSignature(incoming[1]) else {
                core.recordMalformed(fromWorker: false)
                return
            }
            refuse(incoming.count > 2 ? incoming[2] : [], error, to: client)
        }
    }

    /// Counts a message (or a record) that does not decode and answers it with ERROR, naming the
    /// request when the frame names one.
    private func refuse(_ frame: ArraySlice<UInt8>, _ error: WireError, to client: ClientAddress) {
        core.recordMalformed(fromWorker: false)
        // The id only when it is a name (cut to the limit): an ERROR carries nothing else.
        let requestID = (try? WireName.validate(Self.firstField(of: frame).prefix(limits.maxNameBytes), field: "request id")) ?? ""
        let code = error.code == .unsupportedVersion ? BusErrorCode.unsupportedVersion : BusErrorCode.malformedRequest
        send(.error(requestID: requestID, code: code, message: error.message), to: ClientAddress(routingID: client.routingID))
    }

    /// The request id an answer to a malformed message names: the first field of a packed
    /// record (PERFORM), or the frame itself (CANCEL); empty when neither reads.
    private static func firstField(of frame: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        if let record = try? PackedRecord(frame, command: .perform), record.count > 0 { return record.frame(at: 0) }
        return frame
    }

    @exclusivity(unchecked) private var majordomoSequence: UInt64 = 0
    /// The request-id prefix (`mdp:<instance>:<routing id>:`) of the Majordomo client heard from
    /// last: a pipelined client sends its requests in a row, and the prefix's text was made
    /// again for each of them.
    @exclusivity(unchecked) private var lastMajordomoPrefix: (routingID: [UInt8], prefix: String)?

    private func handleMajordomo(routingID: [UInt8]) {
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
        majordomoSequence += 1
        // MDP has no request identity: make one that no other connection, and no other
        // coordinator instance (the journal outlives this one), can produce.
        let prefix: String
        if let last = lastMajordomoPrefix, last.routingID == routingID {
            prefix = last.prefix
        } else {
            prefix = "mdp:\(core.instance):\(Self.routingText(routingID)):"
            lastMajordomoPrefix = (routingID, prefix)
        }
        let wireRequest = WireRequest(requestID: prefix + String(majordomoSequence), action: request.service, input: request.body)
        let client = ClientAddress(routingID: routingID, protocol: .majordomo(request.dialect, service: request.service), curveKey: curveKey)
        guard WireName.isActionName(request.service) else {
            let outcome = WireOutcome.failure(for: wireRequest, code: BusErrorCode.unknownAction,
                                              message: "service '\(request.service)' is not an action name (Feature.action)")
            send(.outcome(outcome), to: client)
            return
        }
        core.received(.perform(wireRequest), from: client, now: .now)
    }

    private func readWorkers() {
        var records = 0
        for _ in 0..<Self.batchSize {
            guard records < Self.recordsPerRead else { return }
            guard workers.receiveBusMessageIfAvailable(into: &incoming, envelope: 1) else { return }
            records += incoming.count - 1
            guard incoming.count >= 2 else {
                core.recordMalformed(fromWorker: true)
                continue
            }
            let id = WorkerID(workerRoutingIDs.intern(incoming[0]))
            let frames = incoming.packedFrames
            if MajordomoWorkerMessage.matches(frames, at: 1) {
                handleMajordomoWorker(id)
                continue
            }
            if !majordomoWorkers.isEmpty { majordomoWorkers[id] = nil }
            if incoming.count > 2, (try? WireHeader.command(in: incoming[1])) == .result {
                // Each outcome is decoded as the core takes it: no array of them. One that does
                // not decode is counted; the others still count.
                core.receivedResults(from: id, now: .now) { take in
                    var names = RepeatedNames()
                    for index in 2..<frames.count {
                        do {
                            take(try WireOutcome.unpackForwarding(frames.frame(at: index), command: .result, limits: limits, names: &names))
                        } catch {
                            core.recordMalformed(fromWorker: true)
                            logger.debug("malformed outcome from a worker", metadata: ["worker.id": "\(id)", "wire.error": "\(error)"])
                        }
                    }
                }
                continue
            }
            do {
                let message = try WorkerMessage.decode(frames, at: 1, limits: limits)
                core.received(message, from: id, now: .now)
            } catch {
                core.recordMalformed(fromWorker: true)
                logger.debug("malformed worker message", metadata: ["worker.id": "\(id)", "wire.error": "\(error)"])
            }
        }
    }

    /// A Majordomo worker (MDP/0.1, RFC 7, or MDP/0.2, RFC 18): from here on, what goes to it is
    /// framed in its version.
    private func handleMajordomoWorker(_ id: WorkerID) {
        let version = MajordomoWorkerMessage.version(incoming, at: 1)
        majordomoSender = version.map { (id, $0) }
        defer { majordomoSender = nil }
        let message: MajordomoWorkerMessage
        do {
            message = try MajordomoWorkerMessage.decode(incoming.packedFrames, at: 1, limits: limits)
        } catch {
            core.recordMalformed(fromWorker: true)
            logger.warning("Majordomo worker message refused", metadata: ["worker.id": "\(id)", "wire.error": "\(error)"])
            // RFC 7: the broker answers what it cannot take with DISCONNECT, and the worker
            // registers again (a registered one leaves first: what it holds is requeued, not
            // counted against it). Another MDPW version cannot be answered in its own terms.
            if error.code != .unsupportedVersion {
                if majordomoWorkers[id] != nil { core.received(.disconnect, from: id, now: .now) }
                _ = transmit(.disconnect, to: id)
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
            majordomoWorkers[id] = version
            core.registerMajordomoWorker(
                id, service: service, name: Self.majordomoWorkerName(id.routingID, version: version), protocolName: version.name, now: now
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
    static func majordomoWorkerName(_ routingID: [UInt8], version: MajordomoWorkerVersion = .v01) -> String {
        (version == .v01 ? "mdp01-" : "mdp02-") + routingText(routingID)
    }

    /// A routing id as text for names: hex, or `h` and a hash when long (a name has at most 255
    /// bytes).
    static func routingText(_ routingID: [UInt8]) -> String {
        routingID.count <= 32 ? HexText.of(routingID) : "h" + String(InputDigest.of(routingID), radix: 16)
    }

    private func readSubscriptions() {
        // One SUBSCRIBED per prefix per batch confirms every subscriber of it; a flood of
        // subscriptions (XPUB passes each on, being verbose) must not become a flood of
        // confirmations on the topics of legitimate subscribers.
        var confirm: [[UInt8]] = []
        defer {
            followBeganSubscriptions()
            confirmSubscriptions(confirm)
        }
        for _ in 0..<Self.batchSize {
            guard outcomes.receiveIfAvailable(into: &incoming) else { return }
            // XPUB delivers 0x01 + prefix for a subscription (every one, being verbose), and
            // 0x00 + prefix when the last subscriber of that prefix leaves.
            guard incoming.count == 1, let kind = incoming[0].first else { continue }
            let topic = Array(incoming[0].dropFirst())
            if kind == 1 {
                subscribedTopics.insert(topic)
                if !confirm.contains(topic) { confirm.append(topic) }
            } else if kind == 0 {
                subscribedTopics.remove(topic)
            }
        }
    }

    /// Tells the core whether anyone subscribes to began events, after the subscriptions read.
    private func followBeganSubscriptions() {
        core.beganEvents(wanted: subscribedTopics.contains(where: OutcomeTopic.matchesBegan))
    }

    /// Publishes SUBSCRIBED for `topics`, at most `maxConfirmationsPerSecond` a second: past
    /// that (a flood of distinct prefixes) confirmations are dropped and counted; a subscriber
    /// that misses one times out and can subscribe again.
    private func confirmSubscriptions(_ topics: [[UInt8]]) {
        let now = ContinuousClock.now
        if now - confirmationWindowStart >= .seconds(1) {
            confirmationWindowStart = now
            confirmationsInWindow = 0
        }
        for topic in topics {
            guard confirmationsInWindow < Self.maxConfirmationsPerSecond else {
                core.recordDroppedConfirmation()
                continue
            }
            confirmationsInWindow += 1
            core.subscribed(topic: topic)
        }
    }

    // MARK: CoordinatorOutbox

    func send(_ reply: ClientReply, to client: ClientAddress) {
        if case .accepted(let requestIDs) = reply, client.protocol == .actionBus {
            if let index = acceptanceIndex[client] {
                held.acceptances[index].requestIDs.append(contentsOf: requestIDs)
            } else {
                acceptanceIndex[client] = held.acceptances.count
                held.acceptances.append((client, requestIDs))
            }
        } else {
            held.replies.append((reply, client))
        }
    }

    var hasSubscribers: Bool { !subscribedTopics.isEmpty || !outcomeFeeds.isEmpty }

    /// In-process readers of the outcome stream (the dashboard's live tail): each gets every
    /// outcome as it is published, dropping its oldest when it falls behind.
    @exclusivity(unchecked) private var outcomeFeeds: [Int: AsyncStream<WireOutcome>.Continuation] = [:]
    @exclusivity(unchecked) private var lastFeedID = 0

    /// Adds an in-process reader of every published outcome; `remove` is called with its id
    /// when its stream ends.
    func addOutcomeFeed(_ continuation: AsyncStream<WireOutcome>.Continuation) -> Int {
        lastFeedID += 1
        outcomeFeeds[lastFeedID] = continuation
        return lastFeedID
    }

    func removeOutcomeFeed(_ id: Int) {
        outcomeFeeds[id] = nil
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
        guard backlogs[RoutingKey(client.routingID), default: []].count < configuration.maxRepliesOwedPerClient else {
            core?.recordUndeliverableReply()
            return
        }
        backlogs[RoutingKey(client.routingID), default: []].append((reply, client))
    }

    /// Sends what the backlogs hold while their clients have room.
    private func drainBacklogs() {
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

    private enum Transmission { case sent, full, dropped }

    private func transmit(_ reply: ClientReply, to client: ClientAddress) -> Transmission {
        outgoing.removeAll()
        outgoing.append(client.routingID)
        do {
            switch client.protocol {
            case .actionBus:
                reply.encode(into: &outgoing)
                try clients.sendBusMessage(outgoing, envelope: 1, options: .dontWait)
            case .majordomo(let dialect, let service):
                guard let body = Self.majordomoBody(reply) else { return .sent }
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
                "client.routingID": "\(Self.routingText(client.routingID))", "reply": "\(Self.kind(of: reply))",
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
        case .error(let requestID, let code, _): "ERROR \(code) for \(requestID)"
        }
    }

    func send(_ instruction: WorkerInstruction, to worker: WorkerID) -> Bool {
        // Whatever goes to the worker (a CANCEL, say) follows the requests chosen before it.
        if requestBatches[worker] != nil { sendRequestBatch(to: worker) }
        return transmit(instruction, to: worker)
    }

    /// Keeps the request for the batch's REQUEST to its worker, sent when the batch ends.
    func send(_ request: OutgoingRequest, to worker: WorkerID) -> Bool {
        if let last = lastRequestBatch, last.worker == worker {
            last.gathered.append(request, bytes: request.byteCount)
        } else if let gathered = requestBatches[worker] {
            gathered.append(request, bytes: request.byteCount)
            lastRequestBatch = (worker, gathered)
        } else {
            let gathered = GatheredRecords<OutgoingRequest>()
            gathered.append(request, bytes: request.byteCount)
            requestBatches[worker] = gathered
            lastRequestBatch = (worker, gathered)
        }
        return true
    }

    func withdrawRequests(to worker: WorkerID) -> [String] {
        majordomoWorkers[worker] = nil
        // What already failed to leave for it is no longer the core's to take back.
        undeliveredRequests.removeAll { $0.worker == worker }
        if lastRequestBatch?.worker == worker { lastRequestBatch = nil }
        return requestBatches.removeValue(forKey: worker)?.records.map(\.requestID) ?? []
    }

    /// Sends every worker the requests chosen for it; requests that cannot leave go back to the
    /// core (here, never from inside one of its calls), which may choose other workers for them,
    /// whose batches then go too. Each failure takes a worker out of the pool, so this ends.
    private func sendRequestBatches() {
        repeat {
            while let worker = requestBatches.keys.first { sendRequestBatch(to: worker) }
            let failed = undeliveredRequests
            undeliveredRequests.removeAll()
            for (worker, requestIDs) in failed { core.undelivered(requestIDs, to: worker, now: .now) }
        } while !requestBatches.isEmpty
        unreachableThisBatch.removeAll()
    }

    private func sendRequestBatch(to worker: WorkerID) {
        if lastRequestBatch?.worker == worker { lastRequestBatch = nil }
        guard let requests = requestBatches.removeValue(forKey: worker)?.records, !requests.isEmpty else { return }
        // Once a send to it failed in this batch, nothing more goes to it before the core has
        // taken the failed requests back: a later request of a session must not overtake them.
        guard !unreachableThisBatch.contains(worker) else {
            undeliveredRequests.append((worker, requests.map(\.requestID)))
            return
        }
        // An MDP/0.1 worker takes one request a message.
        let maxRecords = majordomoWorkers[worker] != nil ? 1 : WireBatching.maxRecords
        for run in WireBatching.runs(of: requests, maxRecords: maxRecords, size: { $0.byteCount }) {
            guard transmitRequests(requests[run], to: worker) else {
                unreachableThisBatch.insert(worker)
                undeliveredRequests.append((worker, requests[run.lowerBound...].map(\.requestID)))
                return
            }
        }
    }

    /// One REQUEST of `requests`, each record written straight into the message.
    private func transmitRequests(_ requests: ArraySlice<OutgoingRequest>, to worker: WorkerID) -> Bool {
        if majordomoVersion(of: worker) != nil {
            return transmit(requests.count == 1 ? .packedRequest(requests[requests.startIndex].packed)
                            : .packedRequests(requests.map(\.packed)), to: worker)
        }
        outgoing.removeAll()
        outgoing.append(worker.routingID)
        outgoing.append(WireHeader.bytes(.request))
        for request in requests { request.append(to: &outgoing) }
        return sendOutgoing(to: worker)
    }

    /// The Majordomo version `worker` speaks: a registered one's, or the sender's being answered.
    private func majordomoVersion(of worker: WorkerID) -> MajordomoWorkerVersion? {
        majordomoWorkers[worker] ?? (majordomoSender?.id == worker ? majordomoSender?.version : nil)
    }

    private func transmit(_ instruction: WorkerInstruction, to worker: WorkerID) -> Bool {
        if let version = majordomoVersion(of: worker) {
            return transmitMajordomo(instruction, to: worker, version: version)
        }
        outgoing.removeAll()
        outgoing.append(worker.routingID)
        instruction.encode(into: &outgoing)
        return sendOutgoing(to: worker)
    }

    /// Sends the message built in `outgoing` on the workers socket; `false` when it cannot leave.
    private func sendOutgoing(to worker: WorkerID) -> Bool {
        do {
            try workers.sendBusMessage(outgoing, envelope: 1, options: .dontWait)
            return true
        } catch {
            logger.debug("worker unreachable", metadata: ["worker.id": "\(worker)", "zmq.error": "\(error)"])
            return false
        }
    }

    /// An instruction in Majordomo's terms: REQUEST with the request id as the client address
    /// (the worker echoes it in its reply), HEARTBEAT, DISCONNECT. Majordomo has no WELCOME or
    /// CANCEL (nor END-SESSION, SWITCHES, REPORTING): the worker keeps its own heartbeat, and a
    /// cancelled request's reply is discarded.
    private func transmitMajordomo(_ instruction: WorkerInstruction, to worker: WorkerID, version: MajordomoWorkerVersion) -> Bool {
        // The request id and the input are all RFC 7 carries; a packed record is read in place.
        let requests: [(requestID: String, input: ArraySlice<UInt8>)]
        switch instruction {
        case .request(let request): requests = [(request.requestID, request.input[...])]
        case .requestBatch(let batch): requests = batch.map { ($0.requestID, $0.input[...]) }
        case .packedRequest(let packed): requests = [(packed.requestID, packed.input)]
        case .packedRequests(let batch): requests = batch.map { ($0.requestID, $0.input) }
        case .welcome, .cancel, .endSession, .switches, .reporting: return true
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

    func publish(_ message: StreamMessage) {
        // Each outcome is published under two topics; the feeds take the action-first one.
        if !outcomeFeeds.isEmpty, case .event(let topic, _, let outcome) = message, topic.first == UInt8(ascii: "A") {
            for feed in outcomeFeeds.values { feed.yield(outcome) }
        }
        // Nobody would get it: skip the encoding and the send. Only a few prefixes are checked
        // here; past that (a flood of subscriptions) libzmq's own matching decides.
        if case .event(let topic, _, _) = message, subscribedTopics.count <= 64,
           !subscribedTopics.contains(where: { topic.starts(with: $0) }) {
            return
        }
        if journalWriter != nil {
            held.events.append(message)
        } else {
            gather(message)
        }
    }

    /// Events go out a run at a time: consecutive events of one topic in one EVENT. A
    /// subscriber sees either action-first or session-first topics (its prefix starts with one
    /// or the other), so each kind keeps its own run and the order within each kind stays as
    /// numbered; anything else goes out after what was gathered before it.
    private func gather(_ message: StreamMessage) {
        guard case .event(let topic, let sequences, let outcome) = message else {
            sendEventRuns()
            deliver(message)
            return
        }
        let kind = topic.first == UInt8(ascii: "S") ? 1 : 0
        if eventRunTopics[kind] != topic || eventRuns[kind].isFull(adding: outcome.byteCount) {
            sendEventRun(kind)
            eventRunTopics[kind] = topic
        }
        eventRuns[kind].append(OutcomeEvent(sequences: sequences, outcome: outcome), bytes: outcome.byteCount)
    }

    private func sendEventRuns() {
        sendEventRun(0)
        sendEventRun(1)
    }

    private func sendEventRun(_ kind: Int) {
        guard !eventRuns[kind].records.isEmpty else { return }
        let events = eventRuns[kind].take()
        let topic = eventRunTopics[kind]
        deliver(events.count == 1
            ? .event(topic: topic, sequences: events[0].sequences, outcome: events[0].outcome)
            : .eventBatch(topic: topic, events: events))
    }

    private func deliver(_ message: StreamMessage) {
        outgoing.removeAll()
        message.encode(into: &outgoing)
        do {
            try outcomes.sendBusMessage(outgoing, envelope: 1, options: .dontWait)
        } catch {
            // A matching subscriber's queue is full (XPUB_NODROP refuses the whole send). Count
            // it, then send again in lossy mode: libzmq drops the message for the full
            // subscribers only (and parks them until they read again, so their later drops are
            // silent), and they see the gap in the sequence numbers. The request path never
            // waits for a subscriber.
            core?.recordStreamOverflow()
            warnAboutDrops()
            do {
                try outcomes.setOption(.xpubNoDrop, false)
                try outcomes.sendBusMessage(outgoing, envelope: 1, options: .dontWait)
            } catch {
                logger.debug("outcome stream send failed", metadata: ["zmq.error": "\(error)"])
            }
            try? outcomes.setOption(.xpubNoDrop, true)
        }
    }

    /// At most one warning per 10 s, with the running count.
    private func warnAboutDrops() {
        let now = ContinuousClock.now
        if let last = lastDropWarning, now - last < .seconds(10) { return }
        lastDropWarning = now
        logger.warning("outcome stream overflowed for a slow subscriber; it misses outcomes until it catches up", metadata: [
            "stream.overflows": "\(core?.statistics.streamOverflows ?? 0)",
        ])
    }


    /// The JSON body a Majordomo client gets: the outcome; nothing for ACCEPTED.
    static func majordomoBody(_ reply: ClientReply) -> [UInt8]? {
        switch reply {
        case .outcome(let outcome): return OutcomeJSON.encode(outcome)
        case .error(_, let code, let message): return OutcomeJSON.encodeError(code: code, message: message)
        default: return nil
        }
    }
}
