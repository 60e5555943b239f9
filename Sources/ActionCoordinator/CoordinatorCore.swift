import ActionCore
import ActionJournal
import ActionWire
import DequeModule
import Foundation
import Logging

/// The coordinator's decisions, without sockets: request table, queue, worker registry,
/// sticky sessions, action stacks and the outcome stream's numbering.
///
/// Every input is a method call; every output goes to the ``CoordinatorOutbox``. It is not
/// thread-safe: the coordinator's I/O loop owns it.
///
/// Queued requests wait in *lanes*: one per session (its requests leave in submission order,
/// to the worker hosting it) and one per action for requests without a session. The queue is
/// the list of lanes that hold requests, each once, oldest first; dispatch walks lanes, not
/// requests, so an action nobody serves costs one step per pass whatever it holds, and a
/// session waiting for its busy host is parked on it and costs nothing. Deadlines sit in a
/// ``DeadlineWheel``: a tick looks only at what is due.
package final class CoordinatorCore {
    private let configuration: CoordinatorConfiguration
    /// Not counted: the outbox owns the core (the driver) or outlives it (a test's harness).
    /// A safe `unowned` reference is checked and retained on every use, five times a request.
    private unowned(unsafe) let outbox: any CoordinatorOutbox
    private let logger: Logger

    /// Every accepted request, by id, from its acceptance until its client acknowledges its
    /// outcome: unfinished ones, and finished ones whose outcome is owed
    /// (``PendingRequest/owedOutcome``). One table for a request's whole life: a PERFORM looks
    /// its id up once, and an outcome is kept where its request already is, not copied into a
    /// table of its own (an entry made, a slot found, and the request's slot freed).
    @exclusivity(unchecked) private var requests = RequestTable()
    /// The unfinished requests (the request table less the owed outcomes it holds).
    private var unfinishedCount: Int { requests.count - completed.owedCount }
    @exclusivity(unchecked) private var lanes: [Lane: LaneQueue] = [:]
    /// The lane enqueued into last, and its queue (while it is in ``lanes``): a message's
    /// requests mostly share one lane, found without hashing its name for each.
    @exclusivity(unchecked) private var lastLane: (lane: Lane, queue: LaneQueue)?
    /// Emptied lane queues kept for reuse: a lane that fills and empties with every request
    /// (one in flight per session, say) allocates nothing.
    @exclusivity(unchecked) private var spareLaneQueues: [LaneQueue] = []
    /// Lanes holding queued requests, in the order they filled: each lane is either here or
    /// parked on the worker hosting its session (while that worker has no room for it).
    @exclusivity(unchecked) private var waiting: Deque<Lane> = []
    /// Session lanes that wait for their host, by host: dispatch does not step over them again
    /// until the host has a free credit (or is gone), so a thousand sessions waiting on a busy
    /// worker cost nothing while another worker takes work.
    @exclusivity(unchecked) private var parked: [WorkerID: [Lane]] = [:]
    @exclusivity(unchecked) private var queuedCount = 0
    /// Lane entries of requests that left the queue without dispatch (cancelled, expired,
    /// adopted); dropped when dispatch reaches them, or all at once when they pile up.
    @exclusivity(unchecked) private var staleEntries = 0
    @exclusivity(unchecked) private var deadlines: DeadlineWheel
    /// When each owed outcome's client stops waiting (its request's deadline and
    /// ``CoordinatorConfiguration/owedOutcomeGrace``): it becomes recent then, and may be evicted.
    @exclusivity(unchecked) private var owedDeadlines: DeadlineWheel
    /// Accepted, unfinished requests per client connection, for the per-client share.
    /// Connections with no unfinished request are forgotten by the once-a-second sweep.
    @exclusivity(unchecked) private var clientShares: [RoutingKey: ClientShare] = [:]
    /// Every client address with unfinished requests, once (its requests point at it).
    @exclusivity(unchecked) private var senders: [ClientAddress: RequestSender] = [:]
    @exclusivity(unchecked) private var workers: [WorkerID: WorkerRecord] = [:] {
        didSet {
            servingWorkers = nil
            lastServed = nil
        }
    }
    /// The workers serving each action, made from `workers` when first needed after it changed
    /// (a worker registered or left): routing a request hashes its action once, not once per
    /// worker. Whether each takes work now (draining, unreachable, credits) is asked on use.
    @exclusivity(unchecked) private var servingWorkers: [String: [WorkerRecord]]?
    /// The last action asked about and its workers: a request is routed after its acceptance
    /// asked the same, and a run of requests names one action, so most asks compare two small
    /// strings instead of hashing one.
    @exclusivity(unchecked) private var lastServed: (action: String, workers: [WorkerRecord])?
    /// The sender the last request came from: a PERFORM's requests all come from one, so
    /// finding it again hashes no address.
    @exclusivity(unchecked) private var lastSender: RequestSender?
    @exclusivity(unchecked) private var sessions: [String: SessionPin] = [:]
    /// The fleet-wide feature switches an operator set (FEATURES), journaled, sent to every
    /// worker (SWITCHES) as it registers and whenever they change.
    @exclusivity(unchecked) private var featureSwitches: [String: FeatureSwitch] = [:]
    /// Whether anyone subscribes to began events: workers report them only then (REPORTING).
    @exclusivity(unchecked) private var beganWanted = false
    @exclusivity(unchecked) private var lastSweep: ContinuousClock.Instant?
    private let startedAt: ContinuousClock.Instant
    /// ``CoordinatorConfiguration/owedOutcomeGrace`` in nanoseconds, added to a deadline's
    /// ``ClockOffset`` for every outcome kept.
    private let owedOutcomeGraceNanoseconds: Int64
    /// ``CoordinatorConfiguration/defaultTimeout`` and ``CoordinatorConfiguration/maxTimeout``
    /// in nanoseconds, for ``timeoutNanoseconds(asked:)``.
    private let defaultTimeoutNanoseconds: Int64
    private let maxTimeoutNanoseconds: Int64
    @exclusivity(unchecked) private var completed: CompletedOutcomes
    @exclusivity(unchecked) private var stacks = ActionStackTracker()
    /// When each session last finished a request: the stacks and stream counters of a session
    /// idle for `stackIdleTimeout` are closed and forgotten, so neither grows forever.
    @exclusivity(unchecked) private var sessionActivity: [String: ContinuousClock.Instant] = [:]
    @exclusivity(unchecked) private var sequencer = OutcomeSequencer()
    @exclusivity(unchecked) private var nextOrder: UInt64 = 0
    @exclusivity(unchecked) private var freeCredits = 0
    /// This coordinator's instance id: PONG carries it so clients notice a restart.
    package let instance: String
    /// The wall clock, for the deadlines the journal keeps (a restart may be on another day).
    private let wallClock: () -> Date
    /// Running counters; the gauges are filled in by ``statistics``.
    @exclusivity(unchecked) private var counters = CoordinatorStatistics()
    /// Per-outcome metrics, when the configuration asks for them.
    private let metrics: CoordinatorMetrics?

    /// Creates a core that answers through `outbox`, which must outlive it (the core does not
    /// keep it alive: the coordinator's driver is the outbox of the core it owns).
    /// `instance` names this run of the coordinator, and `wallClock` tells the time of day: a
    /// simulation gives both.
    package init(
        configuration: CoordinatorConfiguration, outbox: any CoordinatorOutbox, logger: Logger,
        now: ContinuousClock.Instant = .now, instance: String = CoordinatorCore.newInstance(), wallClock: @escaping () -> Date = Date.init
    ) {
        self.configuration = configuration
        self.instance = instance
        self.wallClock = wallClock
        self.outbox = outbox
        self.logger = logger
        self.startedAt = now
        self.owedOutcomeGraceNanoseconds = configuration.owedOutcomeGrace.wholeNanoseconds
        self.defaultTimeoutNanoseconds = configuration.defaultTimeout.wholeNanoseconds
        self.maxTimeoutNanoseconds = configuration.maxTimeout.wholeNanoseconds
        self.deadlines = DeadlineWheel(origin: now)
        self.owedDeadlines = DeadlineWheel(origin: now)
        self.completed = CompletedOutcomes(
            capacity: configuration.completedRetention, byteCapacity: configuration.completedRetentionBytes
        )
        self.metrics = configuration.recordsMetrics ? CoordinatorMetrics() : nil
    }

    /// A fresh instance id: 16 hex digits of a random UUID.
    package static func newInstance() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)).lowercased()
    }

    /// The credits the pool counts free, and the sum of the free credits of the workers that
    /// take work (reachable, not draining): always equal and never negative, or credits are
    /// being lost or made up. For tests and the simulation.
    package var creditAccount: (pool: Int, workers: Int) {
        (freeCredits, workers.values.reduce(0) { $0 + $1.freeCredits })
    }

    /// Where the coordinator has `requestID` (queued, running on a worker, finished), and
    /// whether a worker holds it; for the simulation's reports.
    package func whereabouts(of requestID: String) -> String {
        let holders = workers.values.filter { $0.inFlight.contains(requestID) }.map(\.name)
        guard let pending = requests[requestID] else { return "not held; in flight on \(holders)" }
        return "\(pending.isFinished ? "finished" : "\(pending.placement)"), recovered \(pending.recovered); in flight on \(holders)"
    }

    /// The counters, with the current gauges.
    package var statistics: CoordinatorStatistics {
        var snapshot = counters
        snapshot.workers = workers.count
        snapshot.sessions = sessions.count
        snapshot.queued = queuedCount
        snapshot.running = unfinishedCount - queuedCount
        snapshot.outcomesOwed = completed.owedCount
        snapshot.outcomesKept = completed.count + completed.owedCount
        snapshot.clients = clientShares.values.count { $0.unfinished > 0 }
        snapshot.openStacks = stacks.openStackCount
        snapshot.trackedSessions = sessionActivity.count
        return snapshot
    }

    /// Counts a message that failed to decode.
    package func recordMalformed(fromWorker: Bool) {
        if fromWorker { counters.malformedWorkerMessages += 1 } else { counters.malformedClientMessages += 1 }
    }

    /// Counts a reply that could not be delivered.
    package func recordUndeliverableReply() { counters.undeliverableReplies += 1 }

    /// Counts a reply held back because its client's queue was full (it goes when there is room).
    package func recordDeferredReply() { counters.deferredReplies += 1 }

    /// Counts a subscription confirmation not sent (a flood of subscriptions).
    package func recordDroppedConfirmation() { counters.confirmationsDropped += 1 }

    /// Counts a subscriber queue found full by a publish.
    package func recordStreamOverflow() { counters.streamOverflows += 1 }

    /// Counts a journal commit that failed.
    package func recordJournalFailure() { counters.journalFailures += 1 }

    // MARK: Journal

    /// Takes back what the journal held: finished outcomes answer retries and rebuild the action
    /// stacks; unfinished requests are queued again, in acceptance order, with their deadlines.
    ///
    /// Call it once, before any message arrives.
    package func restore(_ recovery: JournalRecovery, now: ContinuousClock.Instant, wallNow: Date? = nil) {
        let wallNow = wallNow ?? wallClock()
        for outcome in recovery.finished {
            completed.record(outcome)
            recordStack(outcome, now: now)
        }
        for recovered in recovery.unfinished where requests[recovered.request.requestID] == nil {
            let request = recovered.request
            nextOrder += 1
            let pending = PendingRequest.make(
                request, sender: nil, order: nextOrder,
                deadline: now + .milliseconds(Int64((recovered.deadline.timeIntervalSince(wallNow) * 1000).rounded(.up)))
            )
            pending.recovered = true
            pending.deliveries = recovered.workerDeaths
            requests.insert(pending)
            deadlines.insert(pending)
            enqueue(pending, atHead: false)
        }
        counters.recovered += recovery.unfinished.count
        featureSwitches = recovery.featureSwitches
    }

    /// What a compacted journal must hold: the finished outcomes still kept for retries, then the
    /// unfinished requests in acceptance order, each with the worker deaths it has seen.
    package func journalSnapshot(now: ContinuousClock.Instant, wallNow: Date? = nil) -> [JournalRecord] {
        let wallNow = wallNow ?? wallClock()
        var records: [JournalRecord] = []
        forEachSnapshotRecord(now: now, wallNow: wallNow) { record in
            records.append(record)
        } accepted: { pending, deadline in
            records.append(.accepted(pending.request, deadline: deadline))
        }
        return records
    }

    /// The same snapshot, written as the journal's records: each unfinished request straight
    /// from the bytes it is held as, so a compaction with a million queued makes no
    /// `WireRequest` for any of them.
    package func encodedJournalSnapshot(now: ContinuousClock.Instant, wallNow: Date? = nil) -> JournalSnapshot {
        let wallNow = wallNow ?? wallClock()
        var snapshot = JournalSnapshot()
        forEachSnapshotRecord(now: now, wallNow: wallNow) { record in
            snapshot.append(record)
        } accepted: { pending, deadline in
            snapshot.append(pending.acceptance(deadline: deadline))
        }
        return snapshot
    }

    private func forEachSnapshotRecord(
        now: ContinuousClock.Instant, wallNow: Date,
        _ record: (JournalRecord) -> Void, accepted: (PendingRequest, Date) -> Void
    ) {
        if !featureSwitches.isEmpty { record(.featureSwitches(featureSwitches)) }
        // Recent outcomes oldest first, then the owed ones: a restart takes them back in this
        // order as recent ones, so its bounds evict recent outcomes before any that a client
        // may still be waiting for.
        for outcome in completed.oldestFirst { record(.finished(outcome)) }
        var unfinished: [PendingRequest] = []
        for pending in requests.requests {
            if let outcome = pending.owedOutcome { record(.finished(outcome)) } else { unfinished.append(pending) }
        }
        for pending in unfinished.sorted(by: { $0.order < $1.order }) {
            accepted(pending, wallNow.addingTimeInterval((pending.deadline - now).timeInterval))
            // A running request's current delivery is not a death.
            let deaths = pending.placement == .queued ? pending.deliveries : pending.deliveries - 1
            if deaths > 0 {
                let requestID = pending.requestID
                for _ in 0..<deaths { record(.workerDied(requestID: requestID)) }
            }
        }
    }

    // MARK: Clients

    /// Handles a decoded message from a client.
    package func received(_ message: ClientMessage, from client: ClientAddress, now: ContinuousClock.Instant) {
        switch message {
        case .perform(let request):
            if perform(request, input: request.input[...], from: client, now: now, nowOffset: ClockOffset.of(now)) {
                outbox.send(.accepted(requestID: request.requestID), to: client)
            }
        case .performBatch(let requests):
            receivedPerforms(count: requests.count, from: client, now: now) { take in
                for request in requests { take(request, request.input[...]) }
            }
        case .cancel(let requestID):
            cancel(requestID, from: client, now: now)
        case .acknowledge(let requestIDs):
            receivedAcknowledgements(from: client) { take in
                for requestID in requestIDs { IDTag.withBytes(of: requestID, take) }
            }
        case .stacks(let queryID, let session):
            let report = stacks.report(sessionName: session.isEmpty ? nil : session)
            outbox.send(.stacks(queryID: queryID, json: FleetReports.stacksJSON(report, maxMessageBytes: configuration.maxMessageBytes)), to: client)
        case .endSession(let queryID, let session):
            let closed = endSession(session)
            let json = FleetReports.stacksJSON(ActionStacksReport(stacks: closed), maxMessageBytes: configuration.maxMessageBytes)
            outbox.send(.stacks(queryID: queryID, json: json), to: client)
        case .features(let queryID, let changes):
            if let refusal = switchFeatures(changes) {
                outbox.send(.error(requestID: queryID, code: BusErrorCode.malformedRequest, message: refusal), to: client)
            } else {
                outbox.send(.features(queryID: queryID, json: featuresJSON()), to: client)
            }
        case .workers(let queryID):
            let json = FleetReports.workersJSON(workersReport(now: now), maxMessageBytes: configuration.maxMessageBytes)
            outbox.send(.workers(queryID: queryID, json: json), to: client)
        case .queues(let queryID):
            let json = FleetReports.queuesJSON(queuesReport(), maxMessageBytes: configuration.maxMessageBytes)
            outbox.send(.queues(queryID: queryID, json: json), to: client)
        case .ping:
            outbox.send(.pong(instance: instance), to: client)
        case .stats(let queryID):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let json = (try? encoder.encode(statistics)).map { Array($0) } ?? Array("{}".utf8)
            outbox.send(.stats(queryID: queryID, json: json), to: client)
        }
    }

    /// Ends `session` for a client: closes its open stacks here and tells the worker hosting it
    /// to close its own. Requests of the session still queued or running record in new stacks
    /// when they finish, as a perform after `ActionSession.end()` does in process. The session
    /// is unpinned when nothing of it waits or runs, so its next request may go anywhere.
    private func endSession(_ session: String) -> [ActionStackSnapshot] {
        counters.sessionsEnded += 1
        let closed = stacks.closeStacks(sessionName: session)
        sessionActivity[session] = nil
        sequencer.forget(sessions: [session])
        if let pin = sessions[session] {
            _ = outbox.send(.endSession(session), to: pin.worker)
            let busy = lanes[.session(session)] != nil || workers[pin.worker].map { runs(session, on: $0) } ?? false
            if !busy {
                sessions[session] = nil
                workers[pin.worker]?.sessions.remove(session)
            }
        }
        logger.debug("session ended", metadata: ["session": "\(session)", "action.stacksClosed": "\(closed.count)"])
        return closed
    }

    /// Applies an operator's feature switches; when anything changed, journals the new set and
    /// sends it to every worker, which refuses the actions of a feature switched off
    /// (`featureUnavailable`) and switches its runtime-switched conditional features to match.
    /// Returns why the changes were refused, or `nil` when they were applied.
    private func switchFeatures(_ changes: [String: FeatureSwitch]) -> String? {
        var switches = featureSwitches
        for (feature, state) in changes {
            switches[feature] = state == .cleared ? nil : state
        }
        // SWITCHES carries the whole set, and a worker takes at most this many.
        let limit = WireLimits().maxActionsPerWorker
        guard switches.count <= limit else {
            return "the fleet would have \(switches.count) feature switches; at most \(limit) are kept (clear some first)"
        }
        guard switches != featureSwitches else { return nil }
        featureSwitches = switches
        counters.featureSwitchChanges += 1
        outbox.journal(.featureSwitches(switches))
        for id in workers.keys { _ = outbox.send(.switches(switches), to: id) }
        logger.notice("feature switches changed", metadata: [
            "features.off": "\(switches.filter { $0.value == .off }.keys.sorted())",
            "features.on": "\(switches.filter { $0.value == .on }.keys.sorted())",
        ])
        return nil
    }

    /// The FEATURES report: every feature the registered workers serve (its actions, how many
    /// workers serve it, its switch) and the switches of features no worker serves now.
    func featuresJSON() -> [UInt8] {
        FleetReports.featuresJSON(workers: workers.values, switches: featureSwitches, maxMessageBytes: configuration.maxMessageBytes)
    }

    /// Every registered worker, by name.
    package func workersReport(now: ContinuousClock.Instant) -> FleetWorkersReport {
        FleetReports.workers(workers.values, now: now)
    }

    /// What waits and runs per action, and the sessions with the most waiting.
    func queuesReport() -> FleetQueuesReport {
        FleetReports.queues(
            lanes: lanes, workers: workers, sessions: sessions, queued: queuedCount, running: unfinishedCount - queuedCount
        )
    }

    /// The open stacks of `session`, or of every session.
    func stacksReport(session: String?) -> ActionStacksReport {
        stacks.report(sessionName: session)
    }

    /// Handles the requests of one PERFORM, which `read` hands over one at a time as it decodes
    /// them (so that no array of a message's requests is made): accepted in order, then
    /// dispatched once, so the lanes fill before workers are chosen. One ACCEPTED names every
    /// request of the message that was accepted.
    ///
    /// `take`'s second argument is the request's input: where a decode left it in its message
    /// (``WireRequest/unpackLeavingInput(_:command:limits:)``; the request's own is then
    /// empty), or the request's own. The pending request copies it from there.
    package func receivedPerforms(
        count: Int, from client: ClientAddress, now: ContinuousClock.Instant,
        _ read: (_ take: (WireRequest, _ input: ArraySlice<UInt8>) -> Void) -> Void
    ) {
        var accepted: [String] = []
        accepted.reserveCapacity(count)
        let nowOffset = ClockOffset.of(now)
        read { request, input in
            if perform(request, input: input, from: client, now: now, nowOffset: nowOffset, dispatching: false) {
                accepted.append(request.requestID)
            }
        }
        if !accepted.isEmpty { outbox.send(.accepted(requestIDs: accepted), to: client) }
        dispatch(now: now)
    }

    /// Handles an ACK, whose request ids `read` hands over one at a time as the bytes they came
    /// in (each checked as a name): no `String` or array of them is made.
    package func receivedAcknowledgements(from client: ClientAddress, _ read: (_ take: (UnsafeRawBufferPointer) -> Void) -> Void) {
        // An id the client made itself (`clientID:n`, its client id being its routing id) is
        // never sent again once acknowledged; an idempotency key may be, from anywhere.
        let ownPrefix = client.routingID + [UInt8(ascii: ":")]
        read { requestID in
            // Only an owed outcome changes: found and taken out in one probe. (A recent one,
            // kept under an idempotency key, stays until it is evicted.)
            guard let owed = requests.remove(idBytes: requestID, if: { $0.isFinished }) else { return }
            settle(owed, keep: !requestID.starts(with: ownPrefix))
        }
    }

    /// An owed outcome's request, just taken out of the request table, is done with: its client
    /// has the outcome (or stopped waiting). The outcome is kept as recent when `keep`.
    private func settle(_ owed: PendingRequest, keep: Bool) {
        guard let outcome = owed.owedOutcome else { return }
        owedDeadlines.remove(owed)
        owed.owedOutcome = nil
        completed.settle(Self.owedSize(of: owed, outcome))
        if keep { completed.record(outcome, idTag: owed.idTag, origin: owed.origin) }
    }

    /// Takes a PERFORM; returns whether the request is accepted (new, or a resend of one still
    /// in progress), for the caller to say so in an ACCEPTED. Anything else is answered here.
    /// `input` is the request's input: its own, or where its decode left it in the message.
    /// `nowOffset` is `now` as a ``ClockOffset``, worked out once for a message's requests.
    private func perform(
        _ request: WireRequest, input: ArraySlice<UInt8>, from client: ClientAddress, now: ContinuousClock.Instant,
        nowOffset: Int64, dispatching: Bool = true
    ) -> Bool {
        // Hashed once for the tables it is looked for or kept in.
        let idTag = RequestTable.tag(of: request.requestID)
        let found = requests[request.requestID, tag: idTag]
        if let (outcome, origin) = keptOutcome(request.requestID, idTag: idTag, found: found) {
            if let owner = origin?.firstSender, !client.mayActOn(requestID: request.requestID, firstSentBy: owner) {
                refuseNotOwner(request, from: client)
                return false
            }
            if let conflict = conflict(request, input: input, original: (outcome.action, outcome.session, origin?.inputDigest)) {
                refuseConflict(request, from: client, conflict)
                return false
            }
            counters.duplicates += 1
            outbox.send(.outcome(outcome), to: client)
            return false
        }
        if let pending = found {
            if let owner = pending.firstSender, !client.mayActOn(requestID: request.requestID, firstSentBy: owner) {
                refuseNotOwner(request, from: client)
                return false
            }
            if let conflict = conflict(request, input: input, original: (pending.action, pending.session, pending.inputDigest)) {
                refuseConflict(request, from: client, conflict)
                return false
            }
            // A resend of a request still in progress: answer to wherever the client is now.
            counters.duplicates += 1
            pending.client = client
            return true
        }
        guard PendingRequest.fits(request, input: input) else {
            // The wire codec's limits are far lower: only a request made in this process gets here.
            counters.malformedClientMessages += 1
            let message = "request \(request.requestID) has an empty content type, a name over \(PendingRequest.maxNameBytes) bytes or an input over \(PendingRequest.maxInputBytes) bytes"
            outbox.send(.outcome(.failure(for: request, code: BusErrorCode.malformedRequest, message: message)), to: client)
            return false
        }
        guard unfinishedCount < configuration.maxQueued else {
            refuseOverloaded(request, from: client, "the coordinator holds \(unfinishedCount) unfinished requests (limit \(configuration.maxQueued)); retry later")
            return false
        }
        let sender = sender(client)
        let share = sender.share
        let load = share.unfinished
        guard load < configuration.maxQueuedPerClient else {
            refuseOverloaded(request, from: client, "this client has \(load) unfinished requests (its share is \(configuration.maxQueuedPerClient)); retry later")
            return false
        }
        let timeout = timeoutNanoseconds(asked: request.timeoutMilliseconds)
        nextOrder += 1
        let pending = PendingRequest.make(
            request, input: input, sender: sender, order: nextOrder, deadlineOffset: nowOffset.addingSaturating(timeout), idTag: idTag
        )
        requests.insert(pending)
        share.unfinished += 1
        if isServed(request.action) {
            deadlines.insert(pending)
        } else {
            // Fail fast when nobody serves it (a typo, a missing worker), after a short grace for
            // a worker that is just starting, and after a restart for the workers to come back;
            // a check finding it served puts it back at its deadline.
            let check = max(now + configuration.noWorkerGrace, startedAt + configuration.noWorkerGrace + restartGrace)
            deadlines.insert(pending, at: min(pending.deadline, check))
        }
        // Its lane from the request's names, which a batch's records share, rather than names
        // made again from the pending request's bytes.
        enqueue(pending, lane: Lane(request), atHead: false)
        counters.accepted += 1
        // Its bytes as it is held: one copy, where a `WireRequest` with its input copied and
        // its fields packed again on the journal's thread cost a journaling coordinator 7 %.
        outbox.journal(pending.acceptance(deadline: wallClock().addingTimeInterval(Double(timeout) / 1e9)))
        if dispatching { dispatch(now: now) }
        return true
    }

    /// The outcome kept for `requestID` and where its request came from: owed, held by `found`
    /// (the request table's entry for the id, if any), or else recent, in the kept outcomes.
    private func keptOutcome(
        _ requestID: String, idTag: UInt32, found: PendingRequest?
    ) -> (outcome: WireOutcome, origin: OutcomeOrigin?)? {
        if let found, let owed = found.owedOutcome { return (owed, found.origin) }
        return completed.lookup(requestID, idTag: idTag)
    }

    /// The one ``RequestSender`` for `client`, made on its first request (and forgotten by the
    /// once-a-second sweep when its connection has nothing unfinished).
    private func sender(_ client: ClientAddress) -> RequestSender {
        if let last = lastSender, last.address == client { return last }
        if let known = senders[client] {
            lastSender = known
            return known
        }
        let share: ClientShare
        if let known = clientShares[RoutingKey(client.routingID)] {
            share = known
        } else {
            share = ClientShare()
            clientShares[RoutingKey(client.routingID)] = share
        }
        let sender = RequestSender(address: client, share: share)
        senders[client] = sender
        lastSender = sender
        return sender
    }

    /// What differs between a request and the one first sent under its id, if anything: a
    /// resend is the same request; anything else reusing the id must not get the other's outcome.
    private func conflict(
        _ request: WireRequest, input: ArraySlice<UInt8>, original: (action: String, session: String, input: UInt64?)
    ) -> String? {
        if request.action != original.action { return "action \(original.action)" }
        if request.session != original.session { return "session '\(original.session)'" }
        if let digest = original.input, digest != InputDigest.of(input) { return "another input" }
        return nil
    }

    private func refuseConflict(_ request: WireRequest, from client: ClientAddress, _ difference: String) {
        counters.idempotencyConflicts += 1
        let message = "request id \(request.requestID) was first used with \(difference); a resend must repeat the request exactly, and a new request needs a new id"
        outbox.send(.outcome(.failure(for: request, code: BusErrorCode.idempotencyConflict, message: message)), to: client)
    }

    private func refuseNotOwner(_ request: WireRequest, from client: ClientAddress) {
        counters.notOwner += 1
        let message = "request id \(request.requestID) belongs to another client; only the client that sent it may resend or cancel it"
        outbox.send(.outcome(.failure(for: request, code: BusErrorCode.notOwner, message: message)), to: client)
    }

    /// After a restart workers need a few heartbeats to find the coordinator again: no request
    /// fails `noWorker` early before they had the time.
    private var restartGrace: Duration { configuration.heartbeatInterval * (configuration.heartbeatLiveness + 1) }

    private func refuseOverloaded(_ request: WireRequest, from client: ClientAddress, _ message: String) {
        counters.overloaded += 1
        outbox.send(.outcome(.failure(for: request, code: BusErrorCode.overloaded, message: message)), to: client)
    }

    private func cancel(_ requestID: String, from client: ClientAddress, now: ContinuousClock.Instant) {
        let idTag = RequestTable.tag(of: requestID)
        let found = requests[requestID, tag: idTag]
        let kept = keptOutcome(requestID, idTag: idTag, found: found)
        let pending = found.flatMap { $0.isFinished ? nil : $0 }
        let owner = pending?.firstSender ?? kept?.origin?.firstSender
        if let owner, !client.mayActOn(requestID: requestID, firstSentBy: owner) {
            counters.notOwner += 1
            outbox.send(.error(requestID: requestID, code: BusErrorCode.notOwner,
                               message: "request \(requestID) belongs to another client; only the client that sent it may cancel it"), to: client)
            return
        }
        if let kept {
            outbox.send(.outcome(kept.outcome), to: client)
            return
        }
        guard let pending else {
            outbox.send(.error(requestID: requestID, code: BusErrorCode.unknownRequest, message: "no request \(requestID) is pending"), to: client)
            return
        }
        if case .running(let worker) = pending.placement {
            // The worker's credit stays out until it answers; its late result is discarded.
            _ = outbox.send(.cancel(requestID: requestID), to: worker)
        }
        pending.client = client
        finish(pending, with: .failure(for: pending.request, code: BusErrorCode.cancelled, message: "cancelled by the client"), now: now)
        dispatch(now: now)
    }

    // MARK: Workers

    /// Handles a decoded message from a worker.
    package func received(_ message: WorkerMessage, from id: WorkerID, now: ContinuousClock.Instant) {
        switch message {
        case .ready(let registration):
            register(id, registration, now: now)
        case .result(let outcome):
            receivedResults(from: id, now: now) { take in take(outcome) }
        case .resultBatch(let outcomes):
            receivedResults(from: id, now: now) { take in outcomes.forEach(take) }
        default:
            guard let worker = knownWorker(id, now: now) else {
                if message != .disconnect { _ = outbox.send(.disconnect, to: id) }
                return
            }
            handle(message, from: worker.record, now: now)
            // Work follows once the message is handled: it may be a DISCONNECT or a DRAINING.
            if worker.returning { dispatch(now: now) }
        }
    }

    /// Handles the outcomes of one RESULT, which `read` hands over one at a time as it decodes
    /// them (so that no array of a message's outcomes is made). Credits return and outcomes go
    /// out first; then their work goes out in one pass.
    package func receivedResults(from id: WorkerID, now: ContinuousClock.Instant, _ read: (_ take: (WireOutcome) -> Void) -> Void) {
        guard let worker = knownWorker(id, now: now) else {
            // Unknown (expired, or the coordinator restarted): it must register again. A result
            // may still answer a request recovered from the journal.
            var adopted = false
            read { outcome in
                if outcome.nested { return }
                if adoptRecovered(outcome, now: now, dispatching: false) { adopted = true } else { counters.lateResultsDiscarded += 1 }
            }
            _ = outbox.send(.disconnect, to: id)
            if adopted { dispatch(now: now) }
            return
        }
        read { outcome in result(outcome, from: worker.record, now: now, dispatching: false) }
        dispatch(now: now)
    }

    /// The registered worker `id`, now heard from; `returning` when it was unreachable until
    /// now (its new connection took over the routing id), and its credits are back.
    private func knownWorker(_ id: WorkerID, now: ContinuousClock.Instant) -> (record: WorkerRecord, returning: Bool)? {
        guard let worker = workers[id] else { return nil }
        worker.lastHeard = now
        let returning = worker.isUnreachable
        if returning {
            worker.isUnreachable = false
            freeCredits += worker.freeCredits
        }
        return (worker, returning)
    }

    private func handle(_ message: WorkerMessage, from worker: WorkerRecord, now: ContinuousClock.Instant) {
        let id = worker.id
        switch message {
        case .ready:
            break
        case .result, .resultBatch:
            // Taken by receivedResults.
            break
        case .heartbeat:
            break
        case .disconnect:
            logger.info("worker left", metadata: ["worker.name": "\(workers[id]?.name ?? "?")"])
            removeWorker(id, countingDelivery: false, now: now)
        case .catalog(let json):
            guard let catalog = try? JSONDecoder().decode(WorkerCatalog.self, from: Data(json)) else {
                counters.malformedWorkerMessages += 1
                logger.warning("a worker's catalog does not decode; its features are listed by name only", metadata: ["worker.name": "\(worker.name)"])
                break
            }
            worker.catalog = catalog
        case .began(let events):
            // Only what it still runs: a request it no longer holds has an outcome already.
            for var event in events where worker.inFlight.contains(event.requestID) {
                event.worker = worker.name
                counters.beganEvents += 1
                let topics = OutcomeTopic.beganTopics(for: event)
                outbox.publish(.began(topic: topics.byAction, events: [event]))
                outbox.publish(.began(topic: topics.bySession, events: [event]))
            }
        case .draining:
            guard !worker.isDraining else { break }
            logger.info("worker draining", metadata: ["worker.name": "\(worker.name)", "worker.inFlight": "\(worker.inFlight.count)"])
            // Its free credits leave the pool; its sessions wait for it to finish, then move.
            freeCredits -= worker.freeCredits
            workers[id]?.isDraining = true
        }
    }

    /// RFC 7's heartbeat: an MDP/0.1 worker heartbeats every 2.5 s and is dead after 3 missed.
    package static let majordomoWorkerExpiry: Duration = .milliseconds(7_500)

    /// An MDP/0.1 (RFC 7) worker's READY: it serves one action, takes one request at a time
    /// (the protocol has no credits) and is judged by RFC 7's heartbeat, or the coordinator's
    /// when that is longer.
    package func registerMajordomoWorker(
        _ id: WorkerID, service: String, name: String, protocolName: String = "MDP/0.1", now: ContinuousClock.Instant
    ) {
        let expiry = max(Self.majordomoWorkerExpiry, configuration.heartbeatInterval * configuration.heartbeatLiveness)
        register(id, WorkerRegistration(name: name, credits: 1, actions: [service]), expiry: expiry, protocolName: protocolName, now: now)
    }

    /// An MDP/0.1 worker's REPLY to the request it was sent as `requestID` (its "client
    /// address"): the one body frame is the output, JSON when it parses as JSON; more than one
    /// frame fails `invalidOutput`, since an outcome has one output.
    package func receivedMajordomoReply(requestID: String, body: [[UInt8]], from id: WorkerID, now: ContinuousClock.Instant) {
        let request = requests[requestID]
        let result: WireOutcome.Result
        if body.count <= 1 {
            let output = body.first ?? []
            let isJSON = (try? JSONSerialization.jsonObject(with: Data(output), options: [.fragmentsAllowed])) != nil
            result = .success(contentType: isJSON ? WireRequest.json : "application/octet-stream", output: output)
        } else {
            result = .failure(code: ActionError.Code.invalidOutput.rawValue,
                              message: "the MDP/0.1 worker replied with \(body.count) body frames; an outcome has one output")
        }
        // A reply for a request no longer here (answered meanwhile) still returns the credit.
        received(.result(WireOutcome(
            requestID: requestID, action: request?.action ?? "", session: request?.session ?? "",
            worker: workers[id]?.name ?? "", closeActionStack: false, result: result
        )), from: id, now: now)
    }

    private func register(
        _ id: WorkerID, _ registration: WorkerRegistration, expiry: Duration? = nil, protocolName: String? = nil,
        now: ContinuousClock.Instant
    ) {
        let record = WorkerRecord(id: id, registration: registration, now: now)
        record.expiry = expiry
        record.protocolName = protocolName
        if let existing = workers[id] {
            // The same worker registering again (it answered DISCONNECTs, it reconnected under
            // its stable routing id, or its actions changed) is the same process: what it runs
            // still comes back, so keep it.
            freeCredits -= existing.freeCredits
            record.inFlight = existing.inFlight
            record.sessions = existing.sessions
            record.isDraining = existing.isDraining
            record.catalog = existing.catalog
        }
        workers[id] = record
        freeCredits += record.freeCredits
        // Every READY is answered with the terms, so a worker never runs on its own guesses of
        // the coordinator's limit and heartbeat.
        _ = outbox.send(.welcome(WorkerTerms(
            maxMessageBytes: UInt32(clamping: configuration.maxMessageBytes),
            heartbeatMilliseconds: WireRequest.timeoutMilliseconds(configuration.heartbeatInterval),
            heartbeatLiveness: UInt32(clamping: configuration.heartbeatLiveness)
        )), to: id)
        // Then the fleet's switches and what to report, always: a worker that kept either from a
        // coordinator that restarted gets them as they are now.
        _ = outbox.send(.switches(featureSwitches), to: id)
        _ = outbox.send(.reporting(began: beganWanted), to: id)
        logger.info("worker registered", metadata: [
            "worker.name": "\(registration.name)", "worker.credits": "\(registration.credits)",
            "worker.actions": "\(registration.actions.count)",
        ])
        dispatch(now: now)
    }

    private func result(_ outcome: WireOutcome, from worker: WorkerRecord, now: ContinuousClock.Instant, dispatching: Bool = true) {
        let id = worker.id
        if outcome.nested {
            nestedPerform(outcome, now: now)
            return
        }
        guard let sent = worker.inFlight.remove(outcome.requestID) else {
            if !adoptRecovered(outcome, now: now, dispatching: dispatching) { counters.lateResultsDiscarded += 1 }
            return
        }
        if !worker.isDraining { freeCredits += 1 }
        if !outcome.session.isEmpty, let pin = sessions[outcome.session], pin.worker == id { pin.lastUsed = now }
        // Unfinished, it is still in the table: a request leaves it only by finishing.
        if !sent.isFinished, sent.placement == .running(on: id) {
            finish(sent, with: outcome, now: now)
        } else {
            // Cancelled or timed out while it ran: the client already has its answer.
            counters.lateResultsDiscarded += 1
        }
        if dispatching { dispatch(now: now) }
    }

    /// A worker that ran a request before the coordinator restarted reports its result: if the
    /// recovered request has not been sent out again, the result answers it and nothing reruns.
    /// Work follows once the whole RESULT is read (`dispatching` false): sent at once, a queued
    /// request could go to this worker and a later result in the same message, of its earlier
    /// run, would be taken for the new one's, which the worker would then run again.
    private func adoptRecovered(_ outcome: WireOutcome, now: ContinuousClock.Instant, dispatching: Bool = true) -> Bool {
        guard let pending = requests[outcome.requestID], !pending.isFinished, pending.recovered, pending.placement == .queued,
              pending.action == outcome.action else { return false }
        counters.adoptedResults += 1
        finish(pending, with: outcome, now: now)
        if dispatching { dispatch(now: now) }
        return true
    }

    /// Declares a worker gone and requeues what it held.
    private func removeWorker(_ id: WorkerID, countingDelivery: Bool, now: ContinuousClock.Instant) {
        guard let worker = workers.removeValue(forKey: id) else { return }
        // Requests still waiting to go to it are requeued below with the rest: they must not
        // leave, and since it never had them, their delivery does not count.
        let withdrawn = Set(outbox.withdrawRequests(to: id))
        freeCredits -= worker.freeCredits
        for session in worker.sessions where sessions[session]?.worker == id {
            sessions[session] = nil
        }
        var requeued: [PendingRequest] = []
        for pending in worker.inFlight.requests {
            guard !pending.isFinished, pending.placement == .running(on: id) else { continue }
            let counts = countingDelivery && (withdrawn.isEmpty || !withdrawn.contains(pending.requestID))
            if counts && pending.deliveries >= configuration.maxDeliveries {
                let message = "the request was delivered \(pending.deliveries) times and its worker died each time"
                finish(pending, with: .failure(for: pending.request, code: BusErrorCode.poisoned, message: message), now: now)
                continue
            }
            if counts {
                outbox.journal(.workerDied(requestID: pending.requestID))
            } else {
                pending.deliveries -= 1
            }
            pending.placement = .queued
            requeued.append(pending)
        }
        counters.redelivered += requeued.count
        // Back to the head of their lanes, in acceptance order.
        for pending in requeued.sorted(by: { $0.order > $1.order }) {
            enqueue(pending, atHead: true)
        }
        dispatch(now: now)
    }

    /// Its connection is gone. That is not yet its death: a worker reconnects under the same
    /// routing id (after a coordinator stall, say) and what it runs still comes back. Until it
    /// is heard from again it gets nothing; if it never is, it expires like any silent worker.
    private func markUnreachable(_ id: WorkerID) {
        guard let worker = workers[id], !worker.isUnreachable else { return }
        freeCredits -= worker.freeCredits
        workers[id]?.isUnreachable = true
        logger.info("worker unreachable; waiting for it to reconnect or expire", metadata: [
            "worker.name": "\(worker.name)", "worker.inFlight": "\(worker.inFlight.count)",
        ])
    }

    /// Whether `requestID` is accepted and has no outcome yet (a deferred ACCEPTED still says
    /// something new only then).
    package func awaitsOutcome(_ requestID: String) -> Bool {
        requests[requestID].map { !$0.isFinished } ?? false
    }

    // MARK: Time

    /// Sends due heartbeats, expires silent workers and fails requests past their deadline.
    package func tick(now: ContinuousClock.Instant) {
        let expiry = configuration.heartbeatInterval * configuration.heartbeatLiveness
        for (id, worker) in workers {
            // A Majordomo worker sends nothing while its code runs a request (neither RFC 7 nor
            // RFC 18 heartbeats from inside the work): its silence counts once that request's
            // deadline has passed, or after `majordomoBusyTimeout`, whichever comes first.
            let busyMajordomo = worker.expiry != nil && now - worker.lastHeard < configuration.majordomoBusyTimeout
                && worker.inFlight.requests.contains { !$0.isFinished && now < $0.deadline }
            if now - worker.lastHeard > worker.expiry ?? expiry, !busyMajordomo {
                counters.workersExpired += 1
                logger.warning("worker lost", metadata: [
                    "worker.name": "\(worker.name)", "worker.inFlight": "\(worker.inFlight.count)", "worker.reason": "heartbeats stopped",
                ])
                removeWorker(id, countingDelivery: true, now: now)
            } else if now - worker.lastHeartbeatSent >= configuration.heartbeatInterval {
                workers[id]?.lastHeartbeatSent = now
                if !outbox.send(.heartbeat, to: id) { markUnreachable(id) }
            }
        }
        expireDeadlines(now: now)
        if let last = lastSweep, now - last < .seconds(1) { return }
        lastSweep = now
        forgetIdleSessions(now: now)
        if clientShares.values.contains(where: { $0.unfinished == 0 }) {
            clientShares = clientShares.filter { $0.value.unfinished > 0 }
            senders = senders.filter { $0.value.share.unfinished > 0 }
            lastSender = nil
        }
        closeIdleStacks(now: now)
        expireOwedOutcomes(now: now)
    }

    /// Owed outcomes whose clients stopped waiting become recent (and may be evicted).
    private func expireOwedOutcomes(now: ContinuousClock.Instant) {
        for owed in owedDeadlines.removeDue(now: now) where owed.owedOutcome != nil {
            requests.remove(owed)
            settle(owed, keep: true)
        }
    }

    /// Closes the action stacks, and forgets the stream counters, of sessions that finished
    /// nothing for `stackIdleTimeout`: a session its clients never end (END-SESSION) ends by idleness.
    private func closeIdleStacks(now: ContinuousClock.Instant) {
        let idle = Set(sessionActivity.filter { now - $0.value > configuration.stackIdleTimeout }.keys)
        for session in idle {
            sessionActivity[session] = nil
            counters.idleStacksClosed += stacks.closeStacks(sessionName: session).count
        }
        sequencer.forget(sessions: idle)
    }

    /// The coordinator's own thread was held up for `stall` (a VM pause, a huge report): its
    /// workers' silence during that time is its own, not theirs, so none is declared dead for it:
    /// each gets a full liveness period from `now` to be heard again (it may be reconnecting).
    package func excuseStall(_ stall: Duration, now: ContinuousClock.Instant) {
        for id in Array(workers.keys) {
            if let heard = workers[id]?.lastHeard { workers[id]?.lastHeard = max(heard + stall, now) }
        }
        counters.stalls += 1
        logger.warning("coordinator stalled; worker silence during the stall is not held against them", metadata: ["stall": "\(stall)"])
    }

    /// Unpins sessions nothing was sent to or heard from for `sessionIdleTimeout` (workers drop
    /// their ActionSessions after the same idle time), so the pin table does not grow with every
    /// session name ever seen. Swept at most once a second.
    private func forgetIdleSessions(now: ContinuousClock.Instant) {
        let idle = sessions.filter { now - $0.value.lastUsed > configuration.sessionIdleTimeout }
        for (session, pin) in idle {
            // A session stays pinned while any of its requests waits or runs: moving it then
            // would let its next request run beside (or before) them on another worker.
            if lanes[.session(session)] != nil { continue }
            if let host = workers[pin.worker], runs(session, on: host) { continue }
            sessions[session] = nil
            workers[pin.worker]?.sessions.remove(session)
        }
    }

    private func expireDeadlines(now: ContinuousClock.Instant) {
        var expired: [PendingRequest] = []
        for pending in deadlines.removeDue(now: now) where !pending.isFinished {
            switch pending.placement {
            case .queued where now >= pending.deadline:
                expired.append(pending)
            case .queued:
                // The early check of a request no registered worker served when it came; one
                // that has been delivered since was served, and waits for its deadline.
                if pending.deliveries > 0 || isServed(pending.action) {
                    deadlines.insert(pending)
                } else {
                    expired.append(pending)
                }
            case .running(let worker) where now >= pending.deadline + configuration.deadlineGrace:
                // The worker's own timeout fired long ago, so it runs nothing for this request
                // any more: its answer was lost (a dropped connection), and so is not coming.
                // Take the request off it, so its credit does not leak.
                if workers[worker]?.inFlight.remove(pending) == true, workers[worker]?.isDraining == false,
                   workers[worker]?.isUnreachable == false {
                    freeCredits += 1
                }
                expired.append(pending)
            case .running:
                // The worker normally answers `timedOut` itself; give it the grace.
                deadlines.insert(pending, at: max(pending.deadline + configuration.deadlineGrace, now))
            }
        }
        guard !expired.isEmpty else { return }
        let served = Set(workers.values.filter { !$0.isDraining && !$0.isUnreachable }.flatMap(\.actions))
        var suggestions: [String: String?] = [:]
        for pending in expired.sorted(by: { $0.order < $1.order }) {
            finish(pending, with: expiredOutcome(pending, served: served, suggestions: &suggestions), now: now)
        }
        // A removed request may have been holding back later requests of its session.
        dispatch(now: now)
    }

    /// `served` and `suggestions` are shared by every request expiring in one tick: a burst of
    /// requests for an unserved action computes the list and the suggestion once.
    private func expiredOutcome(
        _ pending: PendingRequest, served: Set<String>, suggestions: inout [String: String?]
    ) -> WireOutcome {
        let action = pending.action
        guard pending.placement == .queued, !served.contains(action) else {
            return .failure(for: pending.request, code: BusErrorCode.timedOut, message: "the request's deadline passed before it completed")
        }
        let names = served.sorted()
        var message = "no worker serves \(action)"
        if suggestions[action] == nil { suggestions[action] = ActionNameSuggestion.closest(to: action, among: names) }
        if let suggestion = suggestions[action] ?? nil {
            message += "; did you mean \(suggestion)?"
        }
        message += names.isEmpty ? " (no worker is registered)" : " (workers serve \(names.joined(separator: ", ")))"
        return .failure(for: pending.request, code: BusErrorCode.noWorker, message: message)
    }

    /// Whether a worker that takes new work (not draining, not unreachable) serves `action`.
    private func isServed(_ action: String) -> Bool {
        workersServing(action).contains { !$0.isDraining && !$0.isUnreachable }
    }

    /// The registered workers whose catalog has `action`, in `workers`' order.
    private func workersServing(_ action: String) -> [WorkerRecord] {
        if let lastServed, lastServed.action == action { return lastServed.workers }
        let table: [String: [WorkerRecord]]
        if let servingWorkers {
            table = servingWorkers
        } else {
            var made: [String: [WorkerRecord]] = [:]
            for worker in workers.values {
                for served in worker.actions { made[served, default: []].append(worker) }
            }
            servingWorkers = made
            table = made
        }
        let serving = table[action] ?? []
        lastServed = (action, serving)
        return serving
    }

    // MARK: Queue

    /// Puts a queued request in its lane: at the back, or at the head for a redelivery.
    private func enqueue(_ pending: PendingRequest, atHead: Bool) {
        enqueue(pending, lane: pending.lane, atHead: atHead)
    }

    /// ``enqueue(_:atHead:)`` into `lane`, which must be the request's own.
    private func enqueue(_ pending: PendingRequest, lane: Lane, atHead: Bool) {
        assert(lane == pending.lane, "a request waits in its own lane")
        queuedCount += 1
        if let last = lastLane, last.lane == lane {
            add(pending, to: last.queue, atHead: atHead)
        } else if let queue = lanes[lane] {
            add(pending, to: queue, atHead: atHead)
            lastLane = (lane, queue)
        } else {
            let queue = spareLaneQueues.popLast() ?? LaneQueue()
            queue.requests.append(pending)
            lanes[lane] = queue
            lastLane = (lane, queue)
            if atHead { waiting.prepend(lane) } else { waiting.append(lane) }
        }
    }

    private func add(_ pending: PendingRequest, to queue: LaneQueue, atHead: Bool) {
        if atHead { queue.requests.prepend(pending) } else { queue.requests.append(pending) }
        // Past a small size its storage is not worth keeping as a spare.
        if queue.requests.count == 64 { queue.isLarge = true }
    }

    /// A queued request leaves the queue without dispatch; its lane entry goes stale.
    private func leaveQueue() {
        queuedCount -= 1
        staleEntries += 1
        // Dispatch drops stale entries as it meets them; with no worker to dispatch to they
        // could pile up, so past a bound they are swept at once (amortised O(1) per request).
        if staleEntries > 10_000 && staleEntries > queuedCount { dropStaleEntries() }
    }

    private func dropStaleEntries() {
        lastLane = nil
        for (lane, queue) in lanes {
            queue.requests.removeAll { $0.isFinished || $0.placement != .queued }
            if queue.requests.isEmpty { lanes[lane] = nil }
        }
        waiting.removeAll { lanes[$0] == nil }
        for host in Array(parked.keys) {
            parked[host]!.removeAll { lanes[$0] == nil }
            if parked[host]!.isEmpty { parked[host] = nil }
        }
        staleEntries = 0
    }

    // MARK: Dispatch

    /// Sends queued requests to workers with free credits, lane by lane in the order the lanes
    /// filled, each lane's requests in order (so a session's requests leave in submission order).
    private func dispatch(now: ContinuousClock.Instant) {
        unparkLanes()
        guard freeCredits > 0, !waiting.isEmpty else { return }
        let nowOffset = ClockOffset.of(now)
        // Lanes that could not go and are not parked go back in front of those not reached.
        var blocked: Deque<Lane> = []
        while freeCredits > 0, let lane = waiting.popFirst() {
            switch dispatchLane(lane, now: now, nowOffset: nowOffset) {
            case .emptied:
                // Only a small one is kept: a spare must not hold on to a big burst's storage.
                if lastLane?.lane == lane { lastLane = nil }
                if let queue = lanes.removeValue(forKey: lane), !queue.isLarge, spareLaneQueues.count < 64 {
                    spareLaneQueues.append(queue)
                }
            case .blocked(let host?):
                parked[host, default: []].append(lane)
            case .blocked(nil):
                blocked.append(lane)
            }
        }
        waiting.prepend(contentsOf: blocked)
    }

    /// Lanes parked on a host that has room again, or is gone, go back to the front of the
    /// queue (they are older than what came since), in the order they were parked.
    private func unparkLanes() {
        guard !parked.isEmpty else { return }
        for host in Array(parked.keys) where workers[host].map({ $0.freeCredits > 0 }) ?? true {
            waiting.prepend(contentsOf: parked.removeValue(forKey: host)!)
        }
    }

    /// How a lane's turn ended: it has nothing left, or it waits (for its session's host, when
    /// that is what it waits for).
    private enum LaneProgress { case emptied, blocked(host: WorkerID?) }

    private func dispatchLane(_ lane: Lane, now: ContinuousClock.Instant, nowOffset: Int64) -> LaneProgress {
        guard let queue = lanes[lane] else { return .emptied }
        while let pending = queue.requests.first {
            guard !pending.isFinished, pending.placement == .queued else {
                queue.requests.removeFirst()
                staleEntries = max(0, staleEntries - 1)
                continue
            }
            // Past its deadline, it waits for the tick that answers it `timedOut`: sent now, it
            // would reach its worker with no time left, and the coordinator would count its
            // credit free again (deadline and grace gone) before the worker's answer came.
            guard pending.deadlineOffset > nowOffset else { return .blocked(host: nil) }
            let worker: WorkerRecord
            switch chooseWorker(for: pending, now: now) {
            case .worker(let chosen): worker = chosen
            case .waitForHost(let host): return .blocked(host: host)
            case .waitForAny: return .blocked(host: nil)
            }
            queue.requests.removeFirst()
            queuedCount -= 1
            // A send that failed put the request back at the head of its lane and took the
            // worker out of the pool: the next turn of the loop chooses again.
            send(pending, to: worker, now: now, nowOffset: nowOffset)
        }
        return .emptied
    }

    /// Where a queued request can go now, or what it waits for.
    private enum WorkerChoice {
        case worker(WorkerRecord)
        /// Its session's host: for a credit there, or for what the session still runs there.
        case waitForHost(WorkerID)
        /// Any worker serving its action with a free credit.
        case waitForAny
    }

    /// Whether `host` still runs a request of `session`.
    private func runs(_ session: String, on host: WorkerRecord) -> Bool {
        host.inFlight.contains { !$0.isFinished && $0.hasSession && $0.session == session }
    }

    private func chooseWorker(for pending: PendingRequest, now: ContinuousClock.Instant) -> WorkerChoice {
        let action = pending.action
        let session = pending.hasSession ? pending.session : ""
        if !session.isEmpty, let host = sessions[session]?.worker, let worker = workers[host] {
            if worker.actions.contains(action) {
                return worker.freeCredits > 0 && !worker.inFlight.containsID(of: pending) ? .worker(worker) : .waitForHost(host)
            }
            // The host does not serve this action: the session moves, but only once what it
            // runs there has finished, so its requests still complete in order.
            if runs(session, on: worker) { return .waitForHost(host) }
        }
        var best = leastLoadedWorker(for: action, excluding: nil)
        // Not to a worker still holding an abandoned run of the same id: one credit, one id.
        // Rare, so checked on the choice rather than on every candidate.
        if let chosen = best, chosen.inFlight.containsID(of: pending) {
            best = leastLoadedWorker(for: action, excluding: pending)
        }
        guard let chosenWorker = best else { return .waitForAny }
        let chosen = chosenWorker.id
        if !session.isEmpty {
            if let previous = sessions[session]?.worker, previous != chosen {
                workers[previous]?.sessions.remove(session)
            }
            sessions[session] = SessionPin(worker: chosen, lastUsed: now)
            chosenWorker.sessions.insert(session)
        }
        return .worker(chosenWorker)
    }

    /// The worker serving `action` with a free credit and the fewest requests in flight (on a
    /// tie, the most room), leaving out those still holding a run of the id of `excluded`.
    private func leastLoadedWorker(for action: String, excluding excluded: PendingRequest?) -> WorkerRecord? {
        var best: WorkerRecord?
        for worker in workersServing(action) where worker.freeCredits > 0 {
            if let excluded, worker.inFlight.containsID(of: excluded) { continue }
            if let current = best {
                // Least loaded first; on a tie, the one with more room.
                if worker.inFlight.count < current.inFlight.count
                    || (worker.inFlight.count == current.inFlight.count && worker.freeCredits > current.freeCredits) {
                    best = worker
                }
            } else {
                best = worker
            }
        }
        return best
    }

    /// Sends a queued request to `worker`; when the worker cannot be reached, the request goes
    /// back to the head of its lane, uncounted, and the worker is taken out of the pool.
    /// `nowOffset` is `now` as a ``ClockOffset``.
    private func send(_ pending: PendingRequest, to worker: WorkerRecord, now: ContinuousClock.Instant, nowOffset: Int64) {
        pending.placement = .running(on: worker.id)
        pending.deliveries += 1
        if pending.hasSession { sessions[pending.session]?.lastUsed = now }
        worker.inFlight.insert(pending)
        freeCredits -= 1
        let timeout = WireRequest.timeoutMilliseconds(nanoseconds: pending.deadlineOffset.subtractingSaturating(nowOffset))
        guard !outbox.send(OutgoingRequest(pending, timeoutMilliseconds: timeout), to: worker.id) else { return }
        worker.inFlight.remove(pending)
        freeCredits += 1
        pending.placement = .queued
        pending.deliveries -= 1
        enqueue(pending, atHead: true)
        markUnreachable(worker.id)
    }

    /// Requests the driver could not send to `worker` (their message found the connection gone):
    /// back to the heads of their lanes, in order and uncounted, and the worker leaves the pool
    /// until it is heard from again.
    package func undelivered(_ requestIDs: [String], to worker: WorkerID, now: ContinuousClock.Instant) {
        guard let record = workers[worker] else { return }
        var returned = false
        for requestID in requestIDs.reversed() {
            // The worker never had it: its credit comes back whatever became of the request
            // meanwhile (a cancellation or a deadline may have finished it).
            guard let pending = record.inFlight.remove(requestID) else { continue }
            returned = true
            // The pool counts this worker's free credits only while it is reachable and not draining.
            if !record.isUnreachable, !record.isDraining { freeCredits += 1 }
            guard !pending.isFinished, pending.placement == .running(on: worker) else { continue }
            pending.placement = .queued
            pending.deliveries -= 1
            enqueue(pending, atHead: true)
        }
        guard returned else { return }
        markUnreachable(worker)
        dispatch(now: now)
    }

    // MARK: Outcomes

    /// Answers `pending`, which must be unfinished (and so in the table): it stays there, owed,
    /// until its client acknowledges the outcome, or leaves it now.
    private func finish(_ pending: PendingRequest, with outcome: WireOutcome, now: ContinuousClock.Instant) {
        assert(!pending.isFinished, "a request is answered once")
        complete(pending, with: outcome, now: now)
    }

    private func complete(_ pending: PendingRequest, with outcome: WireOutcome, now: ContinuousClock.Instant) {
        // A worker's outcome says what its session is; one the coordinator decided, what the
        // request said.
        var outcome = outcome
        if outcome.worker.isEmpty && !pending.userInitiated { outcome.userInitiated = false }
        pending.isFinished = true
        if pending.placement == .queued { leaveQueue() }
        deadlines.remove(pending)
        pending.sender?.share.unfinished -= 1
        // Read before the outcome is kept: an owed outcome takes the moved address's place.
        let client = pending.client
        keep(outcome, of: pending)
        counters.completed += 1
        metrics?.finished(
            outcome, actionIsServed: isServed(outcome.action), acceptedAt: pending.recovered ? nil : acceptedAt(of: pending), now: now
        )
        outbox.journal(.finished(outcome))
        recordStack(outcome, now: now)
        publish(outcome)
        if let client {
            outbox.send(.outcome(outcome), to: client)
        }
    }

    /// Keeps the outcome of `pending`, just finished: owed until its client has it (ACK), in the
    /// request's own place in the table; only recent, in the kept outcomes, when the owed ones
    /// fill the byte budget. A Majordomo request's outcome is not kept at all: MDP has no
    /// request identity (each request gets a new id), so no one can ask for it again.
    private func keep(_ outcome: WireOutcome, of pending: PendingRequest) {
        guard pending.sender.map({ $0.address.protocol == .actionBus }) ?? true else {
            requests.remove(pending)
            return
        }
        let size = Self.owedSize(of: pending, outcome)
        guard completed.mayOwe(size) else {
            requests.remove(pending)
            completed.record(outcome, idTag: pending.idTag, origin: pending.origin)
            return
        }
        pending.owedOutcome = outcome
        completed.owe(size)
        owedDeadlines.insert(pending, atOffset: pending.deadlineOffset.addingSaturating(owedOutcomeGraceNanoseconds))
    }

    /// What an owed outcome holds in memory, for the byte budget: the outcome and the request it
    /// stays in (its id, names and input), which is freed only at the ACK.
    private static func owedSize(of pending: PendingRequest, _ outcome: WireOutcome) -> Int {
        CompletedOutcomes.size(of: outcome) + pending.packedCount
    }

    /// An action a worker's action performed in its session (Flint's nested perform): it answers
    /// no request and holds no credit, so it only joins the stacks and the stream.
    private func nestedPerform(_ outcome: WireOutcome, now: ContinuousClock.Instant) {
        counters.nestedPerforms += 1
        recordStack(outcome, now: now)
        publish(outcome)
    }

    /// When `pending` was accepted: its deadline less the timeout it was given.
    private func acceptedAt(of pending: PendingRequest) -> ContinuousClock.Instant {
        ClockOffset.instant(pending.deadlineOffset.subtractingSaturating(timeoutNanoseconds(asked: pending.timeoutMilliseconds)))
    }

    /// The timeout a request gets, in nanoseconds: what it asked for (0 asks for the default),
    /// at most the configured maximum. In integers: `Duration`'s arithmetic is 128-bit, and
    /// this is worked out for every request.
    private func timeoutNanoseconds(asked milliseconds: UInt32) -> Int64 {
        let asked = milliseconds == 0 ? defaultTimeoutNanoseconds : Int64(milliseconds) * 1_000_000
        return min(asked, maxTimeoutNanoseconds)
    }

    /// Publishes `outcome` under both its topics, numbered, when anyone subscribes.
    private func publish(_ outcome: WireOutcome) {
        guard outbox.hasSubscribers else { return }
        // Numbered only while someone listens: a subscriber checks gaps from the first number it
        // gets, so numbers nobody saw need not exist.
        let publication = sequencer.next(for: outcome)
        outbox.publish(.event(topic: publication.topics.byAction, sequences: publication.sequences, outcome: outcome))
        outbox.publish(.event(topic: publication.topics.bySession, sequences: publication.sequences, outcome: outcome))
    }

    private func recordStack(_ outcome: WireOutcome, now: ContinuousClock.Instant) {
        guard !outcome.session.isEmpty else { return }
        sessionActivity[outcome.session] = now
        let summary: ActionOutcomeSummary = if let code = outcome.failureCode {
            .failure(ActionError.Code(code), closeActionStack: outcome.closeActionStack)
        } else {
            .success(closeActionStack: outcome.closeActionStack)
        }
        stacks.record(ActionStackRecord(
            sessionName: outcome.session, featureName: String(outcome.feature),
            actionName: outcome.action, outcome: summary, userInitiated: outcome.userInitiated
        ))
    }

    /// Whether anyone subscribes to began events now (the driver follows the stream's
    /// subscriptions): every worker is told to report them, or to stop.
    package func beganEvents(wanted: Bool) {
        guard wanted != beganWanted else { return }
        beganWanted = wanted
        for id in workers.keys { _ = outbox.send(.reporting(began: wanted), to: id) }
        logger.info(wanted ? "began events wanted: workers report them" : "began events no longer wanted")
    }

    /// Confirms a new subscription on the stream, so the subscriber knows it misses nothing after.
    package func subscribed(topic: [UInt8]) {
        outbox.publish(.subscribed(topic: topic, instance: instance))
    }
}
