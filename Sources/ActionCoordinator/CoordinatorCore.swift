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
///
/// This file holds its state; its work is in one file per concern: `+Clients` (admission,
/// resends, conflicts, shares, refusals, cancels, acknowledgements, queries), `+Workers`
/// (registration, results, adoption after a restart, departures), `+Dispatch` (lanes, parking,
/// the choice of worker), `+Outcomes` (finishing, keeping, publishing, stacks), `+Time`
/// (heartbeats, expiries, deadlines, sweeps) and `+Journal` (restore and snapshot); its reports
/// for people are ``FleetReports``.
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
    var unfinishedCount: Int { requests.count - completed.owedCount }
    @exclusivity(unchecked) var lanes: [Lane: LaneQueue] = [:]
    /// The lane enqueued into last, and its queue (while it is in ``lanes``): a message's
    /// requests mostly share one lane, found without hashing its name for each.
    @exclusivity(unchecked) var lastLane: (lane: Lane, queue: LaneQueue)?
    /// Emptied lane queues kept for reuse: a lane that fills and empties with every request
    /// (one in flight per session, say) allocates nothing.
    @exclusivity(unchecked) var spareLaneQueues: [LaneQueue] = []
    /// Lanes holding queued requests, in the order they filled: each lane is either here or
    /// parked on the worker hosting its session (while that worker has no room for it).
    @exclusivity(unchecked) var waiting: Deque<Lane> = []
    /// Session lanes that wait for their host, by host: dispatch does not step over them again
    /// until the host has a free credit (or is gone), so a thousand sessions waiting on a busy
    /// worker cost nothing while another worker takes work.
    @exclusivity(unchecked) var parked: [WorkerID: [Lane]] = [:]
    @exclusivity(unchecked) var queuedCount = 0
    /// Lane entries of requests that left the queue without dispatch (cancelled, expired,
    /// adopted); dropped when dispatch reaches them, or all at once when they pile up.
    @exclusivity(unchecked) var staleEntries = 0
    @exclusivity(unchecked) var deadlines: DeadlineWheel
    /// When each owed outcome's client stops waiting (its request's deadline and
    /// ``CoordinatorConfiguration/owedOutcomeGrace``): it becomes recent then, and may be evicted.
    @exclusivity(unchecked) var owedDeadlines: DeadlineWheel
    /// Accepted, unfinished requests per client connection, for the per-client share.
    /// Connections with no unfinished request are forgotten by the once-a-second sweep.
    @exclusivity(unchecked) var clientShares: [RoutingKey: ClientShare] = [:]
    /// Every client address with unfinished requests, once (its requests point at it).
    @exclusivity(unchecked) var senders: [ClientAddress: RequestSender] = [:]
    @exclusivity(unchecked) var workers: [WorkerID: WorkerRecord] = [:] {
        didSet {
            servingWorkers = nil
            lastServed = nil
        }
    }
    /// The workers serving each action, made from `workers` when first needed after it changed
    /// (a worker registered or left): routing a request hashes its action once, not once per
    /// worker. Whether each takes work now (draining, unreachable, credits) is asked on use.
    @exclusivity(unchecked) var servingWorkers: [String: [WorkerRecord]]?
    /// The last action asked about and its workers: a request is routed after its acceptance
    /// asked the same, and a run of requests names one action, so most asks compare two small
    /// strings instead of hashing one.
    @exclusivity(unchecked) var lastServed: (action: String, workers: [WorkerRecord])?
    /// The sender the last request came from: a PERFORM's requests all come from one, so
    /// finding it again hashes no address.
    @exclusivity(unchecked) var lastSender: RequestSender?
    @exclusivity(unchecked) var sessions: [String: SessionPin] = [:]
    /// The fleet-wide feature switches an operator set (FEATURES), journaled, sent to every
    /// worker (SWITCHES) as it registers and whenever they change.
    @exclusivity(unchecked) var featureSwitches: [String: FeatureSwitch] = [:]
    /// Whether anyone subscribes to began events: workers report them only then (REPORTING).
    @exclusivity(unchecked) var beganWanted = false
    @exclusivity(unchecked) var lastSweep: ContinuousClock.Instant?
    let startedAt: ContinuousClock.Instant
    /// ``CoordinatorConfiguration/owedOutcomeGrace`` in nanoseconds, added to a deadline's
    /// ``ClockOffset`` for every outcome kept.
    let owedOutcomeGraceNanoseconds: Int64
    /// ``CoordinatorConfiguration/defaultTimeout`` and ``CoordinatorConfiguration/maxTimeout``
    /// in nanoseconds, for ``timeoutNanoseconds(asked:)``.
    let defaultTimeoutNanoseconds: Int64
    let maxTimeoutNanoseconds: Int64
    @exclusivity(unchecked) var completed: CompletedOutcomes
    @exclusivity(unchecked) var stacks = ActionStackTracker()
    /// When each session last finished a request: the stacks and stream counters of a session
    /// idle for `stackIdleTimeout` are closed and forgotten, so neither grows forever.
    @exclusivity(unchecked) var sessionActivity: [String: ContinuousClock.Instant] = [:]
    @exclusivity(unchecked) var sequencer = OutcomeSequencer()
    @exclusivity(unchecked) var nextOrder: UInt64 = 0
    @exclusivity(unchecked) var freeCredits = 0
    /// This coordinator's instance id: PONG carries it so clients notice a restart.
    package let instance: String
    /// The wall clock, for the deadlines the journal keeps (a restart may be on another day).
    let wallClock: () -> Date
    /// Running counters; the gauges are filled in by ``statistics``.
    @exclusivity(unchecked) var counters = CoordinatorStatistics()
    /// Per-outcome metrics, when the configuration asks for them.
    let metrics: CoordinatorMetrics?

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
}
