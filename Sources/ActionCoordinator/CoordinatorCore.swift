import ActionCore
import ActionJournal
import ActionWire
import DequeModule
import Foundation
import Logging

/// The coordinator's decisions, without sockets: it takes each client's and worker's message
/// and the clock's ticks, and decides what is accepted, where it runs, and what is answered.
///
/// Every input is a method call; every output goes to the ``CoordinatorOutbox``. It is not
/// thread-safe: the coordinator's I/O loop owns it. It reads no clock of its own: `now` comes
/// with every call, and its instance id and wall clock come from its creator.
///
/// It is made of parts with one job each, which it owns and drives:
/// - ``Admission``: client connections' shares of the queue, and the limits a PERFORM must pass;
/// - ``WorkerRegistry``: the workers, the credit pool, the sessions' hosts, the least-loaded choice;
/// - ``LaneScheduler``: queued requests in lanes, parked lanes, the order of dispatch;
/// - ``OutcomeKeeper``: owed and recent outcomes, and the stream's numbering;
/// - ``OutcomeHistory``: the stream's positions, and the outcomes kept for replays;
/// - ``KnownActions``: the actions the fleet serves or served lately, journaled;
/// - a ``DeadlineWheel`` of request deadlines, an `ActionStackTracker` of the sessions' stacks;
/// - ``FleetReports``: the JSON reports for people, pure functions of the parts' state.
///
/// What joins the parts is here, one file per concern: `+Clients` (admission, resends, cancels,
/// acknowledgements, queries), `+Workers` (registration, results, adoption after a restart,
/// departures), `+Dispatch` (the choice of worker, sending), `+Outcomes` (finishing,
/// publishing, stacks), `+Time` (heartbeats, expiries, deadlines, sweeps), `+Journal`
/// (restore and snapshot), `+Storage` (the disk watermark) and `+Replication` (the standbys' in-sync
/// set).
package final class CoordinatorCore {
    let configuration: CoordinatorConfiguration
    /// Not counted: the outbox owns the core (the driver) or outlives it (a test's harness).
    /// A safe `unowned` reference is checked and retained on every use, five times a request.
    unowned(unsafe) let outbox: any CoordinatorOutbox
    let logger: Logger

    /// Every accepted request, by id, from its acceptance until its client acknowledges its
    /// outcome: unfinished ones, and finished ones whose outcome is owed
    /// (``PendingRequest/owedOutcome``). One table for a request's whole life: a PERFORM looks
    /// its id up once, and an outcome is kept where its request already is, not copied into a
    /// table of its own (an entry made, a slot found, and the request's slot freed).
    @exclusivity(unchecked) var requests = RequestTable()
    /// The unfinished requests (the request table less the owed outcomes it holds).
    var unfinishedCount: Int { requests.count - outcomes.owedCount }
    /// Who may add work, and how much.
    let admission: Admission
    /// The registered workers, their credits, and the sessions they host.
    let registry = WorkerRegistry()
    /// The queued requests, in lanes.
    let scheduler = LaneScheduler()
    /// Kept and owed outcomes, and the stream's numbering.
    let outcomes: OutcomeKeeper
    /// The stream's positions and the outcomes kept for replays.
    @exclusivity(unchecked) var history: OutcomeHistory
    /// The wall clock's milliseconds since 1970 at ``ClockOffset/epoch``: outcomes are stamped
    /// from the `now` each call brings, not one clock read per outcome.
    let wallMillisecondsAtEpoch: Int64
    /// Until when requests taken back from the journal wait for the workers that may run them
    /// to register again (``CoordinatorConfiguration/adoptionHold``); `nil`: none waits.
    @exclusivity(unchecked) var adoptionHoldUntil: ContinuousClock.Instant?
    /// When the hold began (for its log line).
    @exclusivity(unchecked) var adoptionHoldStartedAt = ContinuousClock.now
    /// The workers the coordinator before had registered (its journal says) that have not
    /// registered here yet: once none is left, the hold ends.
    @exclusivity(unchecked) var awaitedWorkers: Set<String> = []
    /// Runs of requests this coordinator has no record of, made for the one before it: a
    /// client's resend of one is answered by its run (``OrphanRuns``).
    let orphans = OrphanRuns()
    /// The registered workers' names as last journaled.
    @exclusivity(unchecked) var journaledWorkers: Set<String> = []
    /// A batch was withheld (a deposed leader's): no later position may be replayed here.
    @exclusivity(unchecked) var historyReleaseStopped = false
    /// The actions the fleet serves or served lately: what a request may wait for.
    let knownActions: KnownActions
    /// A change of ``knownActions`` waits to be journaled until the disk has room again.
    @exclusivity(unchecked) var knownActionsUnjournaled = false
    /// When each unfinished request is due (or, for one no worker served when it came, when to
    /// check again).
    @exclusivity(unchecked) var deadlines: DeadlineWheel
    /// The fleet-wide feature switches an operator set (FEATURES), journaled, sent to every
    /// worker (SWITCHES) as it registers and whenever they change.
    @exclusivity(unchecked) var featureSwitches: [String: FeatureSwitch] = [:]
    /// Whether anyone subscribes to began events: workers report them only then (REPORTING).
    @exclusivity(unchecked) var beganWanted = false
    @exclusivity(unchecked) var lastSweep: ContinuousClock.Instant?
    let startedAt: ContinuousClock.Instant
    /// ``CoordinatorConfiguration/defaultTimeout`` and ``CoordinatorConfiguration/maxTimeout``
    /// in nanoseconds, for ``timeoutNanoseconds(asked:)``.
    let defaultTimeoutNanoseconds: Int64
    let maxTimeoutNanoseconds: Int64
    @exclusivity(unchecked) var stacks = ActionStackTracker()
    /// When each session last finished a request: the stacks and stream counters of a session
    /// idle for `stackIdleTimeout` are closed and forgotten, so neither grows forever.
    @exclusivity(unchecked) var sessionActivity: [String: ContinuousClock.Instant] = [:]
    @exclusivity(unchecked) var nextOrder: UInt64 = 0
    /// This coordinator's instance id: PONG carries it so clients notice a restart.
    package let instance: String
    /// Its epoch, a group leader's term (0 outside a group): PONG and WELCOME carry it, so
    /// clients and workers refuse a deposed leader.
    var epoch: UInt64 { configuration.leadership?.epoch ?? 0 }
    /// The wall clock, for the deadlines the journal keeps (a restart may be on another day).
    let wallClock: () -> Date
    /// Running counters; the gauges are filled in by ``statistics``.
    @exclusivity(unchecked) var counters = CoordinatorStatistics()
    /// Per-outcome metrics, when the configuration asks for them.
    let metrics: CoordinatorMetrics?
    /// The disk watermark: the journal's free space, and whether new requests are refused for it.
    @exclusivity(unchecked) var storage: StorageWatermark
    /// The standbys' in-sync set, as the replication last reported it.
    @exclusivity(unchecked) var replication = ReplicationStatus()

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
        self.defaultTimeoutNanoseconds = configuration.defaultTimeout.wholeNanoseconds
        self.maxTimeoutNanoseconds = configuration.maxTimeout.wholeNanoseconds
        self.deadlines = DeadlineWheel(origin: now)
        self.knownActions = KnownActions(forgetAfter: configuration.forgetActionsAfter)
        self.admission = Admission(maxQueued: configuration.maxQueued, maxQueuedPerClient: configuration.maxQueuedPerClient)
        self.outcomes = OutcomeKeeper(
            capacity: configuration.completedRetention, byteCapacity: configuration.completedRetentionBytes,
            owedOutcomeGrace: configuration.owedOutcomeGrace, origin: now
        )
        self.history = OutcomeHistory(
            capacity: configuration.streamHistory, byteCapacity: configuration.streamHistoryBytes, maxAge: configuration.streamHistoryAge
        )
        self.wallMillisecondsAtEpoch = Self.milliseconds(since1970: wallClock()) - ClockOffset.of(now) / 1_000_000
        self.metrics = configuration.recordsMetrics ? CoordinatorMetrics() : nil
        self.storage = StorageWatermark(minimumBytes: configuration.minFreeDiskBytes)
    }

    /// A fresh instance id: 16 hex digits of a random UUID.
    package static func newInstance() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)).lowercased()
    }

    /// The credits the pool counts free, and the sum of the free credits of the workers that
    /// take work (reachable, not draining): always equal and never negative, or credits are
    /// being lost or made up. For tests and the simulation.
    package var creditAccount: (pool: Int, workers: Int) { registry.creditAccount }

    /// Where the coordinator has `requestID` (queued, running on a worker, finished), and
    /// whether a worker holds it; for the simulation's reports.
    package func whereabouts(of requestID: String) -> String {
        let holders = registry.workers.values.filter { $0.inFlight.contains(requestID) }.map(\.name)
        guard let pending = requests[requestID] else { return "not held; in flight on \(holders)" }
        return "\(pending.isFinished ? "finished" : "\(pending.placement)"), recovered \(pending.recovered); in flight on \(holders)"
    }

    /// The counters, with the current gauges.
    package var statistics: CoordinatorStatistics {
        var snapshot = counters
        snapshot.workers = registry.count
        snapshot.sessions = registry.sessions.count
        snapshot.queued = scheduler.queuedCount
        snapshot.running = unfinishedCount - scheduler.queuedCount
        snapshot.streamPosition = Int(clamping: history.head)
        snapshot.streamOldestPosition = Int(clamping: history.kept.first?.position ?? 0)
        snapshot.outcomesOwed = outcomes.owedCount
        snapshot.outcomesKept = outcomes.keptCount
        snapshot.clients = admission.activeClients
        snapshot.openStacks = stacks.openStackCount
        snapshot.trackedSessions = sessionActivity.count
        snapshot.knownActions = knownActions.actions.count
        let unserved = knownActions.actions.values.compactMap { $0 }
        snapshot.actionsWithoutWorker = unserved.count
        snapshot.longestWithoutWorkerSeconds = unserved.min().map { max(0, Int(wallClock().timeIntervalSince($0))) } ?? 0
        snapshot.storageFull = storage.isFull ? 1 : 0
        snapshot.diskFreeBytes = storage.freeBytes ?? 0
        snapshot.standbys = replication.configured
        snapshot.standbysInSync = replication.inSync
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
}
