import ActionCore
import ActionTransport
import ActionWire
import Dispatch
import Foundation
import Logging
import ZeroMQ

/// The worker's I/O loop side: owns the DEALER to the coordinator, hands requests to sessions
/// and sends their outcomes back. It runs action code itself only for actions that declare the
/// direct executor (they run where they are called: here). What it does about the coordinator
/// itself (registering, keeping to its terms, heartbeats, reconnecting, draining) is decided by
/// ``WorkerLink``; this class carries it out on the socket and the loop's timers.
final class WorkerDriver: IOLoopDriver {
    static let batchSize = 256
    /// The deadline of a REQUEST whose timeout is 0 (the coordinator never sends one; a peer
    /// speaking the protocol by hand may), unless the session configuration sets its own.
    static let defaultRequestTimeout: Duration = .seconds(30)

    let runtime: IOLoopRuntime
    private unowned let loop: IOLoop<WorkerDriver>
    private let catalog: ActionCatalog
    let configuration: WorkerConfiguration
    private let sessionConfiguration: ActionSessionConfiguration
    private let limits: WireLimits
    let logger: Logger
    @exclusivity(unchecked) var socket: Socket
    /// This process's identity at the coordinator, kept across reconnections, so a reconnect
    /// (after a coordinator stall, say) is the same worker, not a death and a newcomer.
    /// The coordinator, or every member of a coordinator group: a silent one is left for the next.
    @exclusivity(unchecked) var members: MemberEndpoints
    /// In a group, the socket's monitor: a member that drops or refuses the connection does not lead
    /// (now), so the worker moves on, at most every `MemberEndpoints.movePause`.
    @exclusivity(unchecked) var connectionEvents: Socket?
    @exclusivity(unchecked) var connections = 0
    /// When it last moved to another member (moves are paced by `MemberEndpoints.movePause`).
    @exclusivity(unchecked) var movedAt: ContinuousClock.Instant?
    /// The move to the next member that is due (``moveToNextMemberSoon()``), if one is.
    @exclusivity(unchecked) var pendingMove: IOLoopTimerID?
    let routingID = Array(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().utf8)
    /// Numbers the nested performs it reports: their ids are `<routing id>/<n>`, this process's own.
    @exclusivity(unchecked) var lastNestedNumber: UInt64 = 0
    /// Features the coordinator switched off fleet-wide: their requests fail `featureUnavailable`.
    @exclusivity(unchecked) private var featuresSwitchedOff: Set<String> = []
    /// Conditional features whose runtime switch the coordinator set here (to reset when it clears them).
    @exclusivity(unchecked) private var runtimeSwitchesSetByFleet: Set<String> = []
    @exclusivity(unchecked) private var sessions: [String: HostedSession] = [:]
    /// The session the last request ran in; forgotten whenever a session is dropped.
    @exclusivity(unchecked) private var lastSession: (name: String, hosted: HostedSession)?
    @exclusivity(unchecked) var running: [String: RunningRequest] = [:]
    /// Registration, terms, heartbeats, reconnects and draining: this driver carries out what it decides.
    @exclusivity(unchecked) var link: WorkerLink
    @exclusivity(unchecked) private var heartbeatTimer: IOLoopTimerID?
    @exclusivity(unchecked) var incoming = Multipart()
    @exclusivity(unchecked) private var outgoing = PackedFrames()
    /// Outcomes finished this turn, written into the RESULT sent at its end (or sooner, when full).
    @exclusivity(unchecked) var resultWriter = ResultBatchWriter()
    /// The RESULTs sent lately, sent again after each WELCOME.
    @exclusivity(unchecked) var recentResults: RecentResults
    /// READYs sent (counting those that could not leave): the results sent since the last are
    /// the ones a coordinator's answer to a heartbeat mark may cover.
    @exclusivity(unchecked) var readiesSent: UInt64 = 0
    /// The last heartbeat mark sent.
    @exclusivity(unchecked) var heartbeatMark: UInt64 = 0
    /// The oldest registration a request answered in the RESULT being written came under: a
    /// RESULT answering one a coordinator before dispatched is never let go on a mark (the
    /// coordinator now may hold its answer in memory only, as an orphan run).
    @exclusivity(unchecked) var resultRegistration: UInt64?
    /// Outcomes other threads finished, and the array they are taken into on the loop.
    private let inbox = FinishedInbox()
    @exclusivity(unchecked) private var takenFromInbox: [FinishedInbox.Finished] = []
    /// Sessions whose queues wait, unscheduled, for the rest of the message being started
    /// (``SerialQueueExecutor/holdScheduling()``); released when the message is done.
    @exclusivity(unchecked) private var sessionsHoldingScheduling: [HostedSession] = []
    /// Set while ``startingBatch(_:)`` starts a message's requests.
    @exclusivity(unchecked) private var isStartingBatch = false
    /// Whether the coordinator wants BEGAN (someone subscribes to began events).
    @exclusivity(unchecked) private var reportsBegan = false
    /// Requests started during this turn, sent as BEGAN at its end, before the turn's RESULT.
    @exclusivity(unchecked) private var begunRequests: [BeganEvent] = []
    @exclusivity(unchecked) var statistics = WorkerStatistics()
    /// What it serves, described for people (CATALOG), made once.
    private lazy var catalogJSON: [UInt8]? = {
        let json = WorkerCatalog.describing(catalog)
        return json.isEmpty ? nil : json
    }()

    init(
        runtime: IOLoopRuntime, loop: IOLoop<WorkerDriver>, catalog: ActionCatalog,
        configuration: WorkerConfiguration, sessionConfiguration: ActionSessionConfiguration, logger: Logger
    ) throws {
        self.runtime = runtime
        self.loop = loop
        self.catalog = catalog
        self.configuration = configuration
        self.sessionConfiguration = sessionConfiguration
        self.limits = WireLimits(maxBodyBytes: configuration.maxMessageBytes)
        self.logger = logger
        link = WorkerLink(
            heartbeatInterval: configuration.heartbeatInterval, liveness: configuration.heartbeatLiveness,
            maxMessageBytes: configuration.maxMessageBytes, now: .now
        )
        members = MemberEndpoints(configuration.coordinatorEndpoint)
        recentResults = RecentResults(window: configuration.resendWindow, maxBytes: configuration.resendMaxBytes)
        if members.isGroup { link.registrationTimeout = configuration.heartbeatInterval * 2 }
        socket = try Self.connect(runtime: runtime, configuration: configuration, endpoint: members.current, routingID: routingID)
        runtime.register(socket) { [unowned self] _ in read() }
        try watchConnection()
        register(link.start(at: .now))
        scheduleHeartbeats(every: link.terms.heartbeatInterval)
        let sweep = min(configuration.sessionIdleTimeout, .seconds(10))
        runtime.schedule(after: sweep, repeating: sweep) { [unowned self] in dropIdleSessions() }
    }

    static func connect(runtime: IOLoopRuntime, configuration: WorkerConfiguration, endpoint: String, routingID: [UInt8]) throws -> Socket {
        // Not IMMEDIATE: with it, libzmq 4.3 drops the rest of a multipart message being read
        // when the connection breaks mid-message, and asserts (`!_more`, fq.cpp) inside the read
        // (reproduced by killing a coordinator under load). Without it, what is sent while
        // disconnected waits for the connection; the coordinator answers strays with DISCONNECT.
        try runtime.makeBusDealer(
            connectingTo: endpoint, maxMessageBytes: configuration.maxMessageBytes, immediate: false,
            routingID: routingID, curve: configuration.curve
        )
    }

    func ioLoopDidFinishTurn(_ runtime: IOLoopRuntime) {
        sendBegunRequests()
        sendFinishedOutcomes()
    }

    /// Sends the requests started this turn, as few BEGANs as fit the batch limits.
    func sendBegunRequests() {
        guard !begunRequests.isEmpty else { return }
        for run in WireBatching.runs(of: begunRequests, size: { $0.byteCount }) {
            send(.began(WireBatching.records(begunRequests, in: run)))
        }
        begunRequests.removeAll(keepingCapacity: true)
    }

    func ioLoopWillStop(_ runtime: IOLoopRuntime) {
        sendBegunRequests()
        sendFinishedOutcomes()
        link.stop()
        send(.disconnect)
        // Give the DISCONNECT a moment to leave: closing with LINGER 0 would discard it.
        try? socket.setOption(.linger, 500)
    }

    var currentStatistics: WorkerStatistics {
        var snapshot = statistics
        snapshot.running = running.count
        snapshot.sessions = sessions.count
        snapshot.registered = link.isRegistered
        snapshot.resultsKept = recentResults.count
        return snapshot
    }

    // MARK: Coordinator link (what ``WorkerLink`` decides)

    /// The results' limit: the smaller of this worker's and the coordinator's message limits.
    var maxResultBytes: Int { link.terms.maxResultBytes }

    func register(_ registration: WorkerLink.Registration) {
        // What it runs, so a coordinator that took them back from its journal adopts them.
        let ready = WorkerRegistration(
            name: configuration.name, credits: configuration.credits, actions: catalog.actionNames,
            running: Array(running.keys.prefix(WireLimits().maxRequestIDsPerMessage))
        )
        // Queued even while the connection is down (no IMMEDIATE). Should the queue be full, the
        // coordinator never answers, and the silence makes the worker reconnect and send it again.
        readiesSent += 1
        if send(.ready(ready)) {
            statistics.registrations += 1
        }
        if registration.followedByDraining { send(.draining) }
    }

    private func scheduleHeartbeats(every interval: Duration) {
        if let heartbeatTimer { runtime.cancel(heartbeatTimer) }
        heartbeatTimer = runtime.schedule(after: interval, repeating: interval) { [unowned self] in heartbeatTimerFired() }
    }

    /// Keeps to the coordinator's terms (``WorkerLink/welcomeReceived(_:)``), then describes
    /// what it serves (CATALOG) when that fits the coordinator's limit.
    private func welcomed(_ terms: WorkerTerms) {
        guard members.accept(epoch: terms.epoch) else { return refuseDeposedMember(epoch: terms.epoch) }
        let action = link.welcomeReceived(terms)
        // The member leads after all (it refused while it was still binding): stay.
        if let pendingMove {
            runtime.cancel(pendingMove)
            self.pendingMove = nil
            members.stay()
        }
        if let catalogJSON {
            if catalogJSON.count <= action.describeCatalogWithin {
                send(.catalog(json: catalogJSON))
            } else {
                logger.notice("the catalog's description is over the coordinator's message limit; actionbus features will list names only",
                              metadata: ["catalog.bytes": "\(catalogJSON.count)", "coordinator.maxMessageBytes": "\(action.describeCatalogWithin)"])
            }
        }
        resendRecentResults()
        guard let interval = action.heartbeatEvery else { return }
        scheduleHeartbeats(every: interval)
        logger.info("heartbeat set by the coordinator", metadata: ["heartbeat.interval": "\(interval)"])
    }

    private func heartbeatTimerFired() {
        switch link.heartbeatTimerFired(at: .now) {
        case .sendHeartbeat:
            guard recentResults.isEnabled else {
                send(.heartbeat)
                return
            }
            // Marked: the coordinator's answer lets go of the results kept until then.
            heartbeatMark += 1
            send(.markedHeartbeat(mark: heartbeatMark))
        case .reconnect(let registration):
            reconnect(then: registration)
        case .none:
            break
        }
    }

    @discardableResult
    func send(_ message: WorkerMessage) -> Bool {
        outgoing.removeAll()
        message.encode(into: &outgoing)
        return send(frames: outgoing)
    }

    @discardableResult
    func send(frames: PackedFrames) -> Bool {
        do {
            try socket.sendBusMessage(frames, options: .dontWait)
            return true
        } catch {
            // The queue to the coordinator is full; the coordinator requeues whatever this
            // worker held when it expires, so a lost result is redelivered.
            logger.debug("send to coordinator failed", metadata: ["zmq.error": "\(error)"])
            return false
        }
    }

    func read() {
        for _ in 0..<Self.batchSize {
            guard socket.receiveBusMessageIfAvailable(into: &incoming) else { return }
            if members.currentIsDeposed { continue }
            // One clock read a message, not one a request: its requests' deadlines count from
            // when it arrived (a little before each starts: never later).
            let now = ContinuousClock.now
            link.heard(at: now)
            if incoming.count >= 2, (try? WireHeader.command(in: incoming[0])) == .request {
                // Each request is read and started in turn, its input left in the message.
                // Decoding a batch into one array first cost a large allocation per batch, and
                // glibc's malloc pays for a large allocation by consolidating every small chunk
                // freed since the last one.
                startRecordsOneByOne(now: now)
                continue
            }
            do {
                switch try WorkerInstruction.decode(incoming.packedFrames, limits: limits) {
                case .request, .requestBatch, .packedRequest, .packedRequests:
                    // A REQUEST with records is read above, record by record; one without any
                    // does not decode.
                    break
                case .heartbeat:
                    break
                case .resultsTaken(let mark):
                    recentResults.taken(before: mark, registration: readiesSent)
                case .disconnect:
                    register(link.disconnectReceived())
                case .welcome(let terms):
                    welcomed(terms)
                case .endSession(let name):
                    endSession(name)
                case .switches(let switches):
                    apply(switches)
                case .reporting(let began):
                    reportsBegan = began
                case .notLeader(let leader):
                    notLeaderReceived(naming: leader)
                case .cancel(let requestID):
                    // The coordinator has already answered the client; stop the work (the action
                    // sees it through its context) and free the credit when it ends.
                    logger.debug("request cancelled by client", metadata: ["action.request": "\(requestID)"])
                    if let request = running[requestID] {
                        statistics.cancelled += 1
                        request.cancel.cancel()
                    }
                }
            } catch {
                statistics.malformedMessages += 1
                logger.warning("malformed message from coordinator", metadata: ["wire.error": "\(error)"])
            }
        }
    }

    /// Starts each record of a REQUEST on its own: one it cannot take (an input over its own
    /// message limit, say) fails, when it names its request, and the others start. The
    /// sessions' queues hold a message of several records until its last has started; a lone
    /// request is not held (nothing joins it).
    private func startRecordsOneByOne(now: ContinuousClock.Instant) {
        if incoming.count == 2 {
            startEachRecord(now: now)
        } else {
            startingBatch { startEachRecord(now: now) }
        }
    }

    private func startEachRecord(now: ContinuousClock.Instant) {
        var names = RepeatedNames()
        for index in 1..<incoming.count {
            do {
                // The input stays in the message: it is decoded as the perform starts, never kept.
                let (request, input) = try WireRequest.unpackLeavingInput(incoming[index], command: .request, limits: limits, names: &names)
                start(request, input: input, now: now)
            } catch {
                statistics.malformedMessages += 1
                logger.warning("malformed request from coordinator", metadata: ["wire.error": "\(error)"])
                guard let named = WireRequest.unpackIdentity(incoming[index]) else { continue }
                statistics.completed += 1
                resultWriter.append(.failure(for: named, code: BusErrorCode.malformedRequest, message: error.message, worker: configuration.name)) {
                    sendResults($0)
                }
                noteResultRegistration(readiesSent)
            }
        }
    }

    /// Runs `body`, which starts a message's requests, with the queues of the sessions they
    /// join holding their work until the last has started: each queue then runs the message's
    /// performs in one block, woken once, instead of waking and parking as they trickle in.
    private func startingBatch(_ body: () -> Void) {
        isStartingBatch = true
        body()
        isStartingBatch = false
        for hosted in sessionsHoldingScheduling {
            hosted.isHoldingScheduling = false
            hosted.session.mainExecutor.releaseScheduling()
        }
        sessionsHoldingScheduling.removeAll(keepingCapacity: true)
    }

    // MARK: Draining

    /// Stops taking new work, lets what runs finish (up to `grace`), then calls `done` on the loop.
    func drain(grace: Duration, done: @escaping () -> Void) {
        logger.info("draining", metadata: ["worker.running": "\(running.count)", "worker.grace": "\(grace)"])
        let deadline = link.drain(at: .now, grace: grace)
        send(.draining)
        func check() {
            switch link.drainProgress(at: .now, deadline: deadline, running: running.count) {
            case .leave(let unfinished):
                if unfinished > 0 {
                    logger.warning("grace period over; leaving with requests unfinished", metadata: ["worker.running": "\(unfinished)"])
                }
                done()
            case .checkAgain(let delay):
                runtime.schedule(after: delay) { check() }
            }
        }
        check()
    }

    // MARK: Running actions

    /// The session `request` runs in, made on its first request. Most requests name the
    /// session the one before named: that one is found without hashing its name.
    private func hostedSession(for request: WireRequest, now: ContinuousClock.Instant) -> HostedSession {
        let sessionName = request.session.isEmpty ? "default" : request.session
        if let last = lastSession, last.name == sessionName { return last.hosted }
        let hosted: HostedSession
        if let existing = sessions[sessionName] {
            hosted = existing
        } else {
            hosted = HostedSession(session: makeSession(named: sessionName, wireName: request.session, userInitiated: request.userInitiated), lastUsed: now)
            sessions[sessionName] = hosted
        }
        lastSession = (sessionName, hosted)
        return hosted
    }

    /// Starts `request`, whose JSON input is `input`, left in its message.
    private func start(_ request: WireRequest, input: ArraySlice<UInt8>, now: ContinuousClock.Instant) {
        statistics.received += 1
        let hosted = hostedSession(for: request, now: now)
        // Checked and entered with one lookup.
        if let first = running.updateValue(RunningRequest(hosted: hosted, registration: readiesSent), forKey: request.requestID) {
            // Sent again by a restarted coordinator while the first copy still runs here: the
            // first copy's RESULT answers both (the coordinator counts one credit for it).
            running[request.requestID] = first
            statistics.duplicates += 1
            logger.debug("request already running", metadata: ["action.request": "\(request.requestID)"])
            return
        }
        logger.debug("request started", metadata: ["action.request": "\(request.requestID)", "action.name": "\(request.action)"])
        hosted.running += 1
        hosted.lastUsed = now
        let timeout = request.timeoutMilliseconds == 0
            ? sessionConfiguration.defaultTimeout ?? Self.defaultRequestTimeout
            : .milliseconds(Int64(request.timeoutMilliseconds))
        let deadline = now + timeout
        if !featuresSwitchedOff.isEmpty, featuresSwitchedOff.contains(String(request.action.prefix { $0 != "." })) {
            let feature = request.action.prefix { $0 != "." }
            finish(request, .failure(ActionError(
                code: .featureUnavailable, message: "\(request.action) is not available: its feature \(feature) is switched off across the fleet"
            )), now: now)
            return
        }
        guard request.contentType == WireRequest.json else {
            finish(request, .failure(ActionError(code: .invalidInput, message: "content type \(request.contentType) is not supported; send \(WireRequest.json)")), now: now)
            return
        }
        if reportsBegan {
            begunRequests.append(BeganEvent(requestID: request.requestID, action: request.action, session: request.session))
        }
        let loop = self.loop
        let inbox = self.inbox
        let session = hosted.session
        if isStartingBatch, !hosted.isHoldingScheduling {
            hosted.isHoldingScheduling = true
            session.mainExecutor.holdScheduling()
            sessionsHoldingScheduling.append(hosted)
        }
        // The action runs on its own executor; its outcome comes back to this loop once, from
        // whichever thread ended the perform (no completion queue in between), through the
        // inbox: the first outcome into an empty inbox queues the job that takes them all. An
        // action on the direct executor runs right here, on this thread: its outcome is taken
        // at once into an empty inbox, else with those already waiting, by their job.
        let cancel = session.performForwarding(named: request.action, jsonInput: input, deadline: deadline) { outcome in
            if inbox.add(request, outcome) {
                loop.executeHereOrQueue { driver, _ in driver.finishFromInbox() }
            }
        }
        // Not there when the action already finished (inline, on the direct executor).
        if let index = running.index(forKey: request.requestID) {
            running.values[index].cancel = cancel
        }
    }

    /// Finishes every outcome waiting in the inbox.
    private func finishFromInbox() {
        inbox.take(into: &takenFromInbox)
        // One clock read for the lot: it only marks when each session was last used.
        let now = ContinuousClock.now
        for finished in takenFromInbox { finish(finished.request, finished.outcome, now: now) }
        takenFromInbox.removeAll(keepingCapacity: true)
    }

    // MARK: Sessions

    /// A session for requests of `wireName` (empty: the default session, named `default` here).
    /// Actions its actions perform are reported to the coordinator as nested outcomes, so its
    /// stacks hold them too. Flint's `userInitiatedActions` is the session's: the request that
    /// makes it decides.
    private func makeSession(named name: String, wireName: String, userInitiated: Bool) -> ActionSession {
        let loop = self.loop
        return ActionSession(
            name: name, catalog: catalog, userInitiated: userInitiated, configuration: sessionConfiguration, mainQueue: nil,
            // Its queue is its own: performs arriving a batch at a time start in one block.
            coalescesMainQueue: true,
            unrequestedPerformReporter: { perform in
                loop.executeHereOrQueue { driver, _ in driver.reportNested(perform, session: wireName) }
            }
        )
    }

    /// The fleet's feature switches, the whole set: a feature switched off is refused here; a
    /// conditional feature with a runtime switch is switched in this process too (as Flint's
    /// `isEnabled` would be), so what its actions perform inside sees it as well.
    private func apply(_ switches: [String: FeatureSwitch]) {
        featuresSwitchedOff = Set(switches.filter { $0.value == .off }.keys)
        for feature in catalog.features where feature.isConditional {
            if let state = switches[feature.name] {
                FeatureAvailability.shared.setEnabled(state == .on, featureNamed: feature.name)
                runtimeSwitchesSetByFleet.insert(feature.name)
            } else if runtimeSwitchesSetByFleet.remove(feature.name) != nil {
                FeatureAvailability.shared.resetSwitch(featureNamed: feature.name)
            }
        }
        if !switches.isEmpty || !featuresSwitchedOff.isEmpty {
            logger.info("fleet feature switches", metadata: ["features.off": "\(featuresSwitchedOff.sorted())"])
        }
    }

    /// A client ended the session: its stacks close here (as on the coordinator), and an idle
    /// session is dropped at once.
    private func endSession(_ name: String) {
        guard let hosted = sessions[name] else { return }
        statistics.sessionsEnded += 1
        hosted.session.end()
        if hosted.running == 0 {
            sessions[name] = nil
            lastSession = nil
        }
    }

    private func dropIdleSessions() {
        let now = ContinuousClock.now
        lastSession = nil
        sessions = sessions.filter { _, hosted in
            hosted.running > 0 || now - hosted.lastUsed < configuration.sessionIdleTimeout
        }
    }
}
