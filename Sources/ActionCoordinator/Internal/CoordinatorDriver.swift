import ActionJournal
import ActionTransport
import ActionWire
import Logging
import ZeroMQ

/// The coordinator's I/O loop side: reads the three sockets, decodes what arrives and feeds
/// the core, and carries the core's decisions out through its parts, ending each batch (one
/// socket's readable messages, or one timer tick) with what the batch gathered.
///
/// The parts, each on this loop's thread: ``CoordinatorSockets`` (made, secured and bound),
/// ``CommitGate`` (a batch's journal records, and the replies and events held until they are
/// durable), ``ClientReplies`` (ACCEPTEDs, outcomes gathered per client, backlogs at the
/// high-water mark), ``RequestBatches`` and ``WorkerTransmitter`` (one REQUEST per worker per
/// batch), ``MajordomoBridge`` (MDP clients and workers) and ``OutcomeStreamPublisher`` (XPUB
/// subscriptions, runs of events, in-process feeds). They are final classes called directly:
/// this is every message's path.
final class CoordinatorDriver: IOLoopDriver, CoordinatorOutbox {
    /// Messages read from one socket before the loop looks at the others.
    private static let batchSize = 256
    /// About how many records one read of a socket takes before the loop turns: messages carry
    /// up to 1 024 each, and a burst of them must not keep the timers and the other sockets
    /// waiting (on a starved core, 256 full messages took seconds).
    private static let recordsPerRead = 8_192
    /// How often the tick measures the journal's free space (the journal's thread also does,
    /// each time the journal has grown by ``CommitGate/diskMeasuringStep(minFreeDiskBytes:)``).
    private static let diskMeasuringInterval: Duration = .seconds(1)

    private let sockets: CoordinatorSockets
    var endpoints: CoordinatorEndpoints { sockets.endpoints }
    private let configuration: CoordinatorConfiguration
    private let limits: WireLimits
    private let logger: Logger
    @exclusivity(unchecked) private(set) var core: CoordinatorCore!
    let commitGate: CommitGate
    private let clientReplies: ClientReplies
    private let requestBatches: RequestBatches
    private let majordomo: MajordomoBridge
    private let outcomeStream: OutcomeStreamPublisher
    private let runtime: IOLoopRuntime
    /// Told once when the coordinator must stop on its own (the journal failed).
    private let onFatalError: @Sendable (any Error) -> Void
    @exclusivity(unchecked) private var incoming = Multipart()
    @exclusivity(unchecked) private var clientRoutingIDs = RoutingIDCache()
    @exclusivity(unchecked) private var workerRoutingIDs = RoutingIDCache()
    /// The CURVE key of the client message being handled (`nil` without CURVE).
    @exclusivity(unchecked) private var curveKey: String?
    @exclusivity(unchecked) private var lastDiskMeasurement = ContinuousClock.now
    /// A batch's commit was never acknowledged by the standbys (its replies withheld): from then
    /// on nothing tells a worker that what it sent is durable, later batches included.
    @exclusivity(unchecked) private var durabilityInDoubt = false
    /// What the group's election was last told of the journal (``watchJournalForLeadership(now:)``).
    @exclusivity(unchecked) private var journalStalled = false

    init(
        runtime: IOLoopRuntime, loop: IOLoop<CoordinatorDriver>, configuration: CoordinatorConfiguration, logger: Logger,
        onFatalError: @escaping @Sendable (any Error) -> Void
    ) throws {
        self.configuration = configuration
        self.runtime = runtime
        self.onFatalError = onFatalError
        let limits = WireLimits(maxBodyBytes: configuration.maxMessageBytes)
        self.limits = limits
        self.logger = logger
        // Bound before the journal is read: a client or worker that comes meanwhile (a group's
        // successor, told the old leader stepped down) connects and waits, rather than being
        // refused and going round the other members. Nothing is read before the restore below.
        let sockets = try CoordinatorSockets(runtime: runtime, configuration: configuration)
        self.sockets = sockets
        let commitGate: CommitGate
        do {
            commitGate = try CommitGate(configuration: configuration, loop: loop, context: runtime.context, logger: logger)
        } catch {
            for socket in sockets.all { socket.close() }
            throw error
        }
        self.commitGate = commitGate
        clientReplies = ClientReplies(clients: sockets.clients, configuration: configuration, limits: limits, logger: logger)
        majordomo = MajordomoBridge(
            clients: sockets.clients, workers: sockets.workers, limits: limits, commitGate: commitGate, logger: logger
        )
        requestBatches = RequestBatches(transmitter: WorkerTransmitter(workers: sockets.workers, majordomo: majordomo, logger: logger))
        outcomeStream = OutcomeStreamPublisher(outcomes: sockets.outcomes, logger: logger)
        core = CoordinatorCore(configuration: configuration, outbox: self, logger: logger)
        clientReplies.core = core
        majordomo.core = core
        requestBatches.core = core
        outcomeStream.core = core
        // Nothing is read from the sockets before the core holds what the journal does.
        commitGate.restore(into: core)
        // A coordinator started on a full disk refuses new requests from its first message.
        measureDisk(now: .now)
        runtime.register(sockets.clients) { [unowned self] _ in
            readClients()
            flush()
        }
        runtime.register(sockets.workers) { [unowned self] _ in
            readWorkers()
            flush()
        }
        runtime.register(sockets.outcomes) { [unowned self] _ in
            outcomeStream.readSubscriptions(maxMessages: Self.batchSize)
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
            if now - lastDiskMeasurement >= Self.diskMeasuringInterval { measureDisk(now: now) }
            if let replication = commitGate.replication {
                core.standbyAcknowledged(after: replication.lastAcknowledgementLag)
                commitGate.serveCatchUps()
                replication.probeStandbysOutOfSync()
            }
            clientReplies.sendDueAcceptances(now: now)
            watchJournalForLeadership(now: now)
            flush()
        }
    }

    /// A group's leader tells its election whether its journal stalled, so that it renews its
    /// lease only while its disk makes progress (and loses leadership when it does not).
    private func watchJournalForLeadership(now: ContinuousClock.Instant) {
        guard let term = configuration.leadership else { return }
        let stalled = commitGate.journalStalled(at: now, limit: LeadershipTerm.journalStallLimit)
        guard stalled != journalStalled else { return }
        journalStalled = stalled
        logger.warning(stalled ? "the journal's disk stalled: no more lease renewals, so another member takes over"
                               : "the journal's disk makes progress again", metadata: ["journal.stalled": "\(stalled)"])
        term.journalStalled(stalled)
    }

    func ioLoopWillStop(_ runtime: IOLoopRuntime) {
        // The loop reads nothing more: commit what was decided, answer it, release the directory.
        flush()
        guard commitGate.isJournaling, let directory = configuration.dataDirectory else { return }
        commitGate.waitForAll()
        releaseCommitted()
        commitGate.close()
        if !commitGate.hasFailed {
            logger.info("journal flushed and closed", metadata: ["journal.directory": "\(directory)"])
        }
    }

    /// Takes a change of the standbys' in-sync set (from the replication's threads).
    func replicationChanged(_ status: ReplicationStatus) {
        core.replicationChanged(status)
    }

    // MARK: Ending a batch

    /// Ends a batch: sends the requests chosen for workers, and what the batch decided for
    /// clients and the stream once the commit gate lets it go.
    private func flush() {
        guard !commitGate.hasFailed else { return }
        requestBatches.sendAll()
        outcomeStream.sendEventRuns()
        if let output = commitGate.endBatch() { release(output) }
        clientReplies.drainBacklogs()
    }

    /// Sends what waited for the journal, batch by batch in commit order; stops at a failure.
    /// The journal's thread has the loop call it after each commit.
    func releaseCommitted() {
        guard commitGate.isJournaling else { return }
        var unreplicated = 0
        defer {
            if unreplicated > 0 {
                logger.warning("replies withheld: a standby never acknowledged their commit before shutdown, or this group leader's lease may have run out", metadata: [
                    "replies.withheld": "\(unreplicated)",
                ])
            }
        }
        for batch in commitGate.takeCommitted() where !commitGate.hasFailed {
            if batch.unreplicated {
                unreplicated += batch.output.replies.count + batch.output.acceptances.count
                core.streamWithheld()
                durabilityInDoubt = true
                continue
            }
            if let failure = batch.failure {
                stopAfterJournalFailure(failure, withheld: batch.output.replies.count + batch.output.acceptances.count)
                return
            }
            release(batch.output)
            if let freeBytes = batch.freeDiskBytes { diskMeasured(freeBytes) }
            if batch.needsCompaction { commitGate.compact(core) }
        }
        clientReplies.drainBacklogs()
    }

    /// Measures the free space of the journal's file system for the disk watermark (one
    /// `statvfs`): on the tick, after a compaction, and at the start.
    func measureDisk(now: ContinuousClock.Instant) {
        lastDiskMeasurement = now
        guard commitGate.isJournaling, configuration.minFreeDiskBytes > 0, let directory = configuration.dataDirectory,
              let freeBytes = FileSystemSpace.availableBytes(at: directory) else { return }
        diskMeasured(freeBytes)
    }

    /// Hands a measurement to the core; a disk that just filled has its journal compacted at
    /// once, which frees what finished requests took.
    private func diskMeasured(_ freeBytes: Int) {
        // Any measurement, the journal thread's too, puts off the next timed one.
        lastDiskMeasurement = .now
        if core.measuredFreeDisk(freeBytes) == .filled { commitGate.compact(core) }
    }

    private func release(_ output: HeldOutput) {
        if output.streamPosition > 0 { core.streamReleased(upTo: output.streamPosition) }
        outcomeStream.send(output.events)
        clientReplies.release(output)
        guard !durabilityInDoubt else { return }
        for (instruction, worker) in output.workerInstructions { _ = requestBatches.send(instruction, to: worker) }
    }

    /// Fail-stop: what this batch decided is not on disk, so none of it may be acknowledged,
    /// and the journal cannot be trusted to take more. The coordinator stops reading and ends;
    /// clients resend to its successor, which resumes from what the disk really holds.
    private func stopAfterJournalFailure(_ error: any Error, withheld: Int) {
        commitGate.fail()
        core.recordJournalFailure()
        logger.critical("journal write failed; stopping so that nothing unrecorded is acknowledged", metadata: [
            "journal.error": "\(error)", "replies.withheld": "\(withheld)",
        ])
        for socket in sockets.all { runtime.unregister(socket) }
        onFatalError(error)
    }

    // MARK: Reading

    private func readClients() {
        var records = 0
        for _ in 0..<Self.batchSize {
            guard records < Self.recordsPerRead else { return }
            if configuration.curve != nil {
                // The key each message's connection was authenticated with: requests belong to it.
                guard sockets.clients.receiveBusMessageIfAvailable(into: &incoming, envelope: 1, userID: &curveKey) else { return }
            } else {
                guard sockets.clients.receiveBusMessageIfAvailable(into: &incoming, envelope: 1) else { return }
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
            majordomo.handleClientMessage(incoming, routingID: routingID, curveKey: curveKey)
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

    private func readWorkers() {
        var records = 0
        for _ in 0..<Self.batchSize {
            guard records < Self.recordsPerRead else { return }
            guard sockets.workers.receiveBusMessageIfAvailable(into: &incoming, envelope: 1) else { return }
            records += incoming.count - 1
            guard incoming.count >= 2 else {
                core.recordMalformed(fromWorker: true)
                continue
            }
            let id = WorkerID(workerRoutingIDs.intern(incoming[0]))
            let frames = incoming.packedFrames
            if MajordomoWorkerMessage.matches(frames, at: 1) {
                majordomo.handleWorkerMessage(incoming, from: id)
                continue
            }
            majordomo.heardActionBus(from: id)
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

    // MARK: In-process feeds

    /// Adds an in-process reader of every published outcome; `remove` is called with its id
    /// when its stream ends.
    func addOutcomeFeed(_ continuation: AsyncStream<WireOutcome>.Continuation) -> Int {
        outcomeStream.addFeed(continuation)
    }

    func removeOutcomeFeed(_ id: Int) {
        outcomeStream.removeFeed(id)
    }

    // MARK: CoordinatorOutbox

    func send(_ reply: ClientReply, to client: ClientAddress) {
        commitGate.hold(reply, to: client)
    }

    func sendUnheld(_ reply: ClientReply, to client: ClientAddress) {
        guard !commitGate.hasFailed else { return }
        var output = HeldOutput()
        output.replies.append((reply, client))
        clientReplies.release(output)
    }

    func send(_ instruction: WorkerInstruction, to worker: WorkerID) -> Bool {
        requestBatches.send(instruction, to: worker)
    }

    func sendWhenDurable(_ instruction: WorkerInstruction, to worker: WorkerID) {
        guard !durabilityInDoubt else { return }
        guard commitGate.isJournaling else {
            _ = requestBatches.send(instruction, to: worker)
            return
        }
        commitGate.hold(instruction, to: worker)
    }

    /// Keeps the request for the batch's REQUEST to its worker, sent when the batch ends.
    func send(_ request: OutgoingRequest, to worker: WorkerID) -> Bool {
        requestBatches.add(request, to: worker)
        return true
    }

    func withdrawRequests(to worker: WorkerID) -> [String] {
        majordomo.forget(worker)
        return requestBatches.withdraw(to: worker)
    }

    func publish(_ message: StreamMessage) {
        outcomeStream.feed(message)
        // Nobody would get it: skip the encoding and the send.
        guard outcomeStream.reachesSubscribers(message) else { return }
        if commitGate.isJournaling {
            commitGate.hold(message)
        } else {
            outcomeStream.gather(message)
        }
    }

    func journal(_ record: @autoclosure () -> JournalRecord) {
        if commitGate.isJournaling { commitGate.append(record()) }
    }

    var hasSubscribers: Bool { outcomeStream.hasSubscribers }

    func holdStreamPosition(_ position: UInt64) -> Bool {
        guard commitGate.isJournaling else { return false }
        commitGate.holdStreamPosition(position)
        return true
    }
}
