import ActionTransport

/// How a coordinator binds, queues and watches its workers.
///
/// ```swift
/// var configuration = CoordinatorConfiguration()
/// configuration.clientsEndpoint = "tcp://*:5555"
/// configuration.maxQueued = 50_000
/// ```
public struct CoordinatorConfiguration: Sendable {
    /// Where clients connect (ROUTER): ActionBus clients and MDP/0.2 clients.
    public var clientsEndpoint = "tcp://127.0.0.1:5555"
    /// Where workers connect (ROUTER).
    public var workersEndpoint = "tcp://127.0.0.1:5556"
    /// Where subscribers connect (XPUB).
    public var outcomesEndpoint = "tcp://127.0.0.1:5557"
    /// Requests accepted and unfinished (queued or running) before new ones fail `overloaded`.
    /// A queued request costs about 200 bytes beyond its input.
    public var maxQueued = 1_000_000
    /// The share of `maxQueued` one client connection may hold; past it its new requests fail
    /// `overloaded`, so one client cannot park the queue full.
    public var maxQueuedPerClient = 100_000
    /// The deadline of a request that names none.
    public var defaultTimeout: Duration = .seconds(30)
    /// The longest deadline a request may ask for; longer ones are cut to it.
    public var maxTimeout: Duration = .seconds(3600)
    /// How long a request for an action no registered worker serves waits for one to register
    /// before it fails `noWorker`. Raise it for fleets whose workers start late.
    public var noWorkerGrace: Duration = .seconds(2)
    /// How long an action stays *known* after the last worker serving it left; `nil`: forever.
    /// A request for a known action waits for a worker within its deadline (a worker
    /// restarting, a fleet scaling up from zero); one for an unknown action fails `noWorker`
    /// after ``noWorkerGrace``.
    public var forgetActionsAfter: Duration? = .seconds(24 * 3600)
    /// How long a request for a known action no worker serves may wait for one before it fails
    /// `noWorker`; `nil`: until its deadline.
    public var maxWaitForWorker: Duration?
    /// How long past a request's deadline its outcome is kept for a client that has not
    /// acknowledged it (the client stops waiting a few seconds after the deadline).
    public var owedOutcomeGrace: Duration = .seconds(30)
    /// How long past its deadline a running request may take before the coordinator gives up on
    /// it (the worker normally reports `timedOut` first).
    public var deadlineGrace: Duration = .seconds(2)
    /// How often heartbeats go to each worker.
    public var heartbeatInterval: Duration = .seconds(1)
    /// Heartbeat intervals of silence after which a worker is declared dead.
    public var heartbeatLiveness = 3
    /// How long a session keeps its worker with no request sent or answered; then the pin is
    /// dropped and its next request goes to the least-loaded worker. Workers drop an idle
    /// ActionSession after the same default time (`WorkerConfiguration.sessionIdleTimeout`).
    public var sessionIdleTimeout: Duration = .seconds(300)
    /// How long a session may finish nothing before its open action stacks are closed and its
    /// stream counters forgotten (a session has no end on the wire; this bounds both tables).
    public var stackIdleTimeout: Duration = .seconds(1800)
    /// How many times a request is delivered to workers that die with it before it fails `poisoned`.
    public var maxDeliveries = 3
    /// The largest message accepted on any socket, in bytes (enforced by libzmq and the codec).
    public var maxMessageBytes = 1 << 20
    /// Finished outcomes kept to answer retried or duplicated requests.
    public var completedRetention = 100_000
    /// The most bytes of finished outcomes kept (outputs can be large); the oldest go first.
    public var completedRetentionBytes = 256 << 20
    /// How long requests taken back from the journal wait, after a start, for a worker's READY
    /// saying it runs them (started for the coordinator before: this one before a restart, a
    /// group's former leader), so that they are adopted there rather than run a second time.
    /// Other requests go at once, and so do these once the time is up. Zero: no wait. Twice
    /// heartbeat × liveness: a worker whose leader paused notices the silence after one, and
    /// may try a member that does not lead before it reaches the new leader.
    public var adoptionHold: Duration = .seconds(6)
    /// Outcomes of the stream kept so that a subscriber can resume from a position (0: none).
    /// With a journal they are kept across restarts and failovers; without, for this process.
    public var streamHistory = 100_000
    /// The most bytes of the stream's outcomes kept; the oldest go first.
    public var streamHistoryBytes = 64 << 20
    /// How long the stream's outcomes are kept (`nil`: until the other bounds evict them).
    public var streamHistoryAge: Duration? = .seconds(24 * 3600)
    /// The journal's directory: accepted requests and their outcomes are written there before
    /// the coordinator answers, and taken back after a restart. `nil` runs without a journal
    /// (what is accepted is lost if the process dies). The `actionbus` CLI defaults to
    /// `./actionbus-data`.
    public var dataDirectory: String?
    /// The journal size, in bytes, past which it is rewritten with only what is live.
    public var journalCompactionBytes = 64 << 20
    /// The free space, in bytes, the journal's file system must keep (a disk watermark): below
    /// it new requests are refused `storageFull` while everything accepted still runs and has
    /// its outcome journaled, and the journal is compacted early; they are accepted again once
    /// free space is back above it by an eighth. `0` turns the watermark off. Unused without a
    /// journal.
    ///
    /// The default, 128 MiB, is twice the default compaction threshold: the headroom must hold
    /// the outcomes of what was accepted and a compaction's new file, written beside the old
    /// one before it replaces it. (RabbitMQ's disk alarm defaults to 50 MB, for a broker that
    /// pages messages out rather than rewriting a log.) Raise it with `journalCompactionBytes`.
    public var minFreeDiskBytes = 128 << 20
    /// Messages queued per subscriber before the stream drops for it.
    public var outcomeHighWaterMark: Int32 = 10_000
    /// Messages queued per client or worker connection.
    public var peerHighWaterMark: Int32 = 100_000
    /// Replies kept for a client whose queue is full before further ones are dropped (and
    /// counted): a client that reads nothing cannot make the coordinator hold unbounded memory.
    public var maxRepliesOwedPerClient = 1_000_000

    /// CURVE encryption and authentication of all three sockets; `nil` for plaintext.
    public var curve: CurveServerKeys?

    /// How long a Majordomo worker may be silent while it runs a request (its protocol sends no
    /// heartbeats from inside the work) before it is declared dead and the request requeued; an
    /// idle one is judged by its heartbeats (RFC 7's 2.5 s × 3).
    public var majordomoBusyTimeout: Duration = .seconds(60)

    /// Record each outcome by action and result, and each request's time from acceptance to
    /// outcome, through swift-metrics (`actionbus coordinator --http` turns it on and exports
    /// them for Prometheus). Off, they cost nothing.
    public var recordsMetrics = false

    /// How long an ActionBus client's ACCEPTED waits once its request is recorded: it goes (at
    /// the next tick after this) only for requests that still have no outcome, since an
    /// OUTCOME says the request was accepted too. Most requests finish sooner, so most cost
    /// neither side an ACCEPTED. `.zero` sends every ACCEPTED as soon as it is recorded.
    public var acceptanceDelay: Duration = .milliseconds(100)

    /// Warm standbys (`actionbus standby`) this coordinator replicates its journal to,
    /// synchronously: a batch's replies leave once its commit is synced here and acknowledged
    /// by every in-sync standby. Needs a journal.
    public var standbys: [String] = []
    /// How long a standby may owe an acknowledgement before it is out of sync.
    public var standbyTimeout: Duration = .seconds(2)
    /// What happens to a standby that falls behind. `false` (safety): new requests are
    /// refused `unavailable` until it is back, and replies wait for it. `true`
    /// (availability): it leaves the in-sync set and commits stop waiting for it, so what is
    /// accepted meanwhile is on the leader's disk alone.
    public var standbyOptional = false
    /// Set by ``GroupMember`` for the term this coordinator leads its group.
    package var leadership: LeadershipTerm?

    /// The defaults: loopback ports 5555, 5556 and 5557.
    public init() {}
}
