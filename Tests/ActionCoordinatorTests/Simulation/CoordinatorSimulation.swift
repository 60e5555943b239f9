import ActionBusTestSupport
import ActionCoordinator
import ActionJournal
import ActionWire
import Foundation
import Logging

/// A seeded simulation of the coordinator: its socket-free core, driven by clients, workers and
/// a clock that a seeded random schedule moves (requests, resends, cancels, results, late and
/// duplicate results, worker crashes, pauses and departures, coordinator crashes with a torn
/// journal end, compactions), with the bus's invariants checked after every step.
///
/// The journal is kept in memory as its bytes and read back after a crash by the journal's own
/// recovery; what a batch decided reaches clients and workers only once its records are
/// "committed", as the driver holds replies until their batch is durable.
final class CoordinatorSimulation {
    /// An invariant that did not hold, with the steps that led there.
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    static let served = "Echo.say"
    static let typo = "Echo.sya"
    static let sessions = ["", "", "a", "b", "c"]

    let seed: UInt64
    var random: SeededRandom
    let configuration: CoordinatorConfiguration
    let outbox = SimulationOutbox()
    private(set) var core: CoordinatorCore!
    /// Which run of the coordinator this is: 1, then one more after each crash.
    private(set) var incarnation = 1
    var now: ContinuousClock.Instant
    var wallNow = Date(timeIntervalSince1970: 1_800_000_000)
    /// The journal file's committed bytes.
    private(set) var journal: [UInt8]
    let clients = ["c1", "c2", "c3"].map(SimulatedClient.init(name:))
    var workers: [SimulatedWorker] = []
    var nextWorkerNumber = 0
    /// Work to do once the batch being delivered is done (a client resending after a PONG).
    private var followUps: [() -> Void] = []
    /// The last steps, newest last, for the failure report.
    private(set) var trace: [String] = []

    // What the journal says, for the invariants.
    /// Each session's requests, in the order the coordinator accepted them.
    private var sessionOrder: [String: [String]] = [:]
    private var acceptanceIndex: [String: Int] = [:]
    private var finishedIDs: Set<String> = []
    /// Requests sent to some worker at least once.
    private var delivered: Set<String> = []
    /// Outcome-stream events per request.
    private var publications: [String: Int] = [:]
    private(set) var counts: [String: Int] = [:]

    init(seed: UInt64) {
        self.seed = seed
        random = SeededRandom(seed: seed)
        var configuration = CoordinatorConfiguration()
        configuration.heartbeatInterval = .seconds(1)
        configuration.heartbeatLiveness = 3
        configuration.noWorkerGrace = .seconds(2)
        configuration.defaultTimeout = .seconds(10)
        configuration.maxTimeout = .seconds(20)
        configuration.owedOutcomeGrace = .seconds(30)
        configuration.sessionIdleTimeout = .seconds(20)
        configuration.stackIdleTimeout = .seconds(30)
        // Above what a schedule finishes: with a bound it reaches, a restart's finished outcomes
        // (kept as recent, not owed: acknowledgements are not journaled) can be evicted before a
        // client resends, and the request runs again (seed 526455322 with 40; RELIABILITY.md).
        configuration.completedRetention = 100_000
        configuration.maxDeliveries = 3
        self.configuration = configuration
        now = ContinuousClock.now
        journal = JournalSnapshot().bytes
        outbox.isReachable = { [unowned self] id in
            guard let worker = workers.first(where: { $0.id == id }) else { return true }
            return worker.state != .crashed
        }
        core = makeCore()
    }

    private func makeCore() -> CoordinatorCore {
        var logger = Logger(label: "simulation")
        logger.logLevel = .critical
        return CoordinatorCore(
            configuration: configuration, outbox: outbox, logger: logger, now: now, instance: "incarnation-\(incarnation)",
            wallClock: { [unowned self] in wallNow }
        )
    }

    func note(_ step: String) {
        trace.append("[\(String(format: "%.3f", (now - startInstant).seconds))s] \(step)")
        if trace.count > 400 { trace.removeFirst(trace.count - 400) }
        counts[step.split(separator: " ").first.map(String.init) ?? step, default: 0] += 1
    }

    private lazy var startInstant = now

    func violation(_ what: String) -> Violation {
        Violation(description: """
            seed \(seed): \(what)
            replay: ACTIONBUS_SIMULATION_SEED=\(seed) SWIFT_DETERMINISTIC_HASHING=1 swift test --filter CoordinatorSimulationTests
            last steps:
              \(trace.joined(separator: "\n  "))
            """)
    }

    // MARK: Batches

    /// Commits the batch the core just handled: its records to the journal, then what it sent
    /// to clients and workers; then the follow-ups that delivery asked for, each a batch too.
    func commit() throws {
        let (outputs, records) = outbox.takeBatch()
        journal.append(contentsOf: Self.encoded(records))
        for record in records { learn(from: record) }
        for output in outputs { try deliver(output) }
        while !followUps.isEmpty {
            let work = followUps.removeFirst()
            work()
            try commit()
        }
        let credits = core.creditAccount
        guard credits.pool == credits.workers, credits.pool >= 0 else {
            throw violation("the credit pool says \(credits.pool) free, the workers \(credits.workers)")
        }
    }

    /// The records as the journal file holds them.
    static func encoded(_ records: [JournalRecord]) -> ArraySlice<UInt8> {
        var snapshot = JournalSnapshot()
        for record in records { snapshot.append(record) }
        return snapshot.bytes.dropFirst(JournalSnapshot().bytes.count)
    }

    private func learn(from record: JournalRecord) {
        if let (request, _) = record.acceptance {
            noteAccepted(request)
        } else if let outcome = record.finishedOutcome {
            finishedIDs.insert(outcome.requestID)
        }
    }

    private func noteAccepted(_ request: WireRequest) {
        guard acceptanceIndex[request.requestID] == nil else { return }
        acceptanceIndex[request.requestID] = acceptanceIndex.count
        sessionOrder[request.session, default: []].append(request.requestID)
    }

    // MARK: The coordinator's life

    /// Kills the coordinator between two batches and starts it again on its journal. With
    /// `torn`, it dies while writing that batch: part of its records reach the file, and
    /// nothing it decided reaches anyone.
    func restartCoordinator(torn: [JournalRecord]? = nil) throws {
        if let torn {
            let bytes = Self.encoded(torn)
            journal.append(contentsOf: bytes.prefix(random.int(0...bytes.count)))
        }
        let recovery: JournalRecovery
        let valid: Int
        do {
            (recovery, valid) = try RequestJournal.recovery(of: journal)
        } catch {
            throw violation("the journal does not recover: \(error)")
        }
        journal = Array(journal.prefix(valid))
        for recovered in recovery.unfinished { noteAccepted(recovered.request) }
        for outcome in recovery.finished { finishedIDs.insert(outcome.requestID) }
        incarnation += 1
        core = makeCore()
        core.restore(recovery, now: now, wallNow: wallNow)
        // Nobody knows yet: workers hear DISCONNECT when they next speak, clients a new
        // instance in their next PONG.
        try commit()
    }

    /// Rewrites the journal with only what is live, as compaction does.
    func compact() {
        journal = core.encodedJournalSnapshot(now: now, wallNow: wallNow).bytes
    }

    // MARK: Delivery

    private func deliver(_ output: SimulationOutbox.Output) throws {
        switch output {
        case .reply(let reply, let address):
            guard let client = clients.first(where: { $0.address == address }) else { return }
            try deliver(reply, to: client)
        case .instruction(let instruction, let id):
            guard let worker = workers.first(where: { $0.id == id }), worker.state == .up || worker.state == .paused else { return }
            try deliver(instruction, to: worker)
        case .stream(let message):
            if case .event(_, _, let outcome) = message {
                publications[outcome.requestID, default: 0] += 1
                // Each outcome goes out once on its action's topic and once on its session's.
                guard publications[outcome.requestID]! <= 2 else {
                    throw violation("the outcome of \(outcome.requestID) was published more than once")
                }
            }
        }
    }

    private func deliver(_ reply: ClientReply, to client: SimulatedClient) throws {
        switch reply {
        case .accepted(let requestIDs):
            for requestID in requestIDs where !client.accepted(requestID) {
                throw violation("\(client.name) was told \(requestID) is accepted, which it never sent")
            }
        case .outcome(let outcome):
            try received(outcome, by: client)
        case .outcomeBatch(let outcomes):
            for outcome in outcomes { try received(outcome, by: client) }
        case .pong(let instance, _):
            if let known = client.knownInstance, known != instance {
                // A new coordinator: resend everything unanswered, as the client's watch does.
                followUps.append { [unowned self] in resendUnanswered(of: client) }
            }
            client.knownInstance = instance
        default:
            break
        }
    }

    private func received(_ outcome: WireOutcome, by client: SimulatedClient) throws {
        let earlier = client.sentRequest(outcome.requestID)?.outcomes.first
        guard client.received(outcome) else {
            throw violation("\(client.name) got an outcome for \(outcome.requestID), which it never sent")
        }
        if let earlier, earlier != outcome {
            throw violation("\(client.name) got two different outcomes for \(outcome.requestID): \(earlier.result) then \(outcome.result)")
        }
    }

    private func deliver(_ instruction: WorkerInstruction, to worker: SimulatedWorker) throws {
        switch instruction {
        case .request(let request):
            note("> \(worker.name) request \(request.requestID)")
            try checkDelivery(of: request, to: worker)
            if let index = worker.held.firstIndex(where: { $0.request.requestID == request.requestID }) {
                // Sent again (by a coordinator that restarted, or gave it up) while the first copy
                // runs: as a worker does, the first copy's result answers both.
                worker.held[index].incarnation = incarnation
                worker.held[index].epoch = worker.epoch
            } else {
                worker.held.append(.init(
                    request: request, incarnation: incarnation, epoch: worker.epoch,
                    deadline: now + .milliseconds(Int64(request.timeoutMilliseconds))
                ))
            }
        case .welcome:
            note("> \(worker.name) welcome")
            worker.registeredIncarnation = incarnation
            worker.needsRegistration = false
        case .disconnect:
            note("> \(worker.name) disconnect")
            // It was given up (or the coordinator is new): what it holds no longer counts there.
            worker.needsRegistration = true
            worker.registeredIncarnation = nil
            worker.epoch += 1
            worker.mayHaveBeenGivenUp = false
        default:
            break
        }
    }

    /// Whether the coordinator may have given `worker` up: it did once since it registered, or
    /// the worker has been silent long enough that its heartbeats may have run out by now.
    private func mayHaveGivenUp(_ worker: SimulatedWorker) -> Bool {
        worker.mayHaveBeenGivenUp || now - worker.lastSpoke >= configuration.heartbeatInterval * 2
    }

    func resendUnanswered(of client: SimulatedClient) {
        let unanswered = client.unanswered
        guard !unanswered.isEmpty else { return }
        note("resend-all \(client.name) \(unanswered.count)")
        core.received(.performBatch(unanswered), from: client.address, now: now)
    }

    // MARK: Invariants

    /// What must hold when the coordinator sends `request` to `worker`: the worker has a
    /// credit for it; no other worker still runs it or its session (unless this coordinator
    /// may have given that worker up); and a session's requests go out in the order accepted.
    private func checkDelivery(of request: WireRequest, to worker: SimulatedWorker) throws {
        // What it holds past its deadline and the grace, the coordinator has taken off it (its
        // timer answered, and the answer may be lost with a paused or dropped connection).
        let counted = worker.held.filter {
            $0.incarnation == incarnation && $0.epoch == worker.epoch && now < $0.deadline + configuration.deadlineGrace
        }
        if counted.count >= Int(worker.credits) {
            let seen = core.workersReport(now: now).workers.filter { $0.name == worker.name }.map { "\($0.inFlight) in flight of \($0.credits)" }
            let whereabouts = (counted.map(\.request.requestID) + [request.requestID]).map { "\($0): \(core.whereabouts(of: $0))" }
            throw violation("\(worker.name) was sent \(request.requestID) while it runs \(counted.count) requests on \(worker.credits) credits: \(counted.map(\.request.requestID)); the coordinator sees \(seen): \(whereabouts)")
        }
        if counted.contains(where: { $0.request.requestID == request.requestID }) {
            throw violation("\(worker.name) was sent \(request.requestID) again while it runs it")
        }
        for other in workers where other !== worker && (other.state == .up || other.state == .paused) && !mayHaveGivenUp(other) {
            for held in other.held where held.incarnation == incarnation && held.epoch == other.epoch {
                if held.request.requestID == request.requestID {
                    throw violation("\(request.requestID) was sent to \(worker.name) while \(other.name) runs it")
                }
                if !request.session.isEmpty, held.request.session == request.session {
                    throw violation("session \(request.session): \(request.requestID) was sent to \(worker.name) while \(other.name) runs \(held.request.requestID)")
                }
            }
        }
        if !request.session.isEmpty, !delivered.contains(request.requestID), let index = acceptanceIndex[request.requestID] {
            for earlier in sessionOrder[request.session] ?? [] where acceptanceIndex[earlier]! < index {
                if !delivered.contains(earlier) && !finishedIDs.contains(earlier) {
                    throw violation("session \(request.session): \(request.requestID) was sent before \(earlier), accepted earlier")
                }
            }
        }
        delivered.insert(request.requestID)
    }
}

extension Duration {
    /// In seconds, for traces.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
