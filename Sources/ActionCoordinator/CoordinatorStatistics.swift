/// Counters a coordinator keeps: what it did, and what it refused or dropped.
public struct CoordinatorStatistics: Sendable, Hashable, Codable {
    /// Requests accepted (first delivery only).
    public var accepted = 0
    /// Outcomes delivered to clients (and published).
    public var completed = 0
    /// Requests answered from the recorded outcome or the request table instead of running again.
    public var duplicates = 0
    /// Requests refused because the queue was full.
    public var overloaded = 0
    /// Requests refused `storageFull` because the journal's file system was below its free-space
    /// minimum (`minFreeDiskBytes`).
    public var storageFullRefusals = 0
    /// Requests refused `unavailable` because too few standbys were in sync.
    public var unavailableRefusals = 0
    /// Times a standby joined or left the in-sync set.
    public var standbyInSyncChanges = 0
    /// Requests refused because their id was first used for another action, session or input.
    public var idempotencyConflicts = 0
    /// Resends and cancels refused because the request belongs to another client.
    public var notOwner = 0
    /// Requests delivered again after their worker died.
    public var redelivered = 0
    /// Results from workers no longer holding the request (declared dead, or it timed out).
    public var lateResultsDiscarded = 0
    /// Messages that failed to decode on the clients socket.
    public var malformedClientMessages = 0
    /// Messages that failed to decode on the workers socket.
    public var malformedWorkerMessages = 0
    /// Replies to clients that were gone (or had let more than a window of replies pile up).
    public var undeliverableReplies = 0
    /// Replies held back because a live client's queue was full; they went out once it had room.
    public var deferredReplies = 0
    /// Times a subscriber's queue was full when an outcome was published. From then on libzmq
    /// drops outcomes for that subscriber alone, without telling the publisher, until it reads
    /// again; the subscriber sees exactly how many it missed from the sequence numbers.
    public var streamOverflows = 0
    /// SUBSCRIBED confirmations not sent because subscriptions came faster than 1,000 a second.
    public var confirmationsDropped = 0
    /// REPLAYs answered (subscribers resuming from a position).
    public var replays = 0
    /// The outcome stream's last position now.
    public var streamPosition = 0
    /// The oldest position kept now, the oldest a subscriber may resume from (0: none is kept;
    /// a subscriber may resume only from one past ``streamPosition``).
    public var streamOldestPosition = 0
    /// Accepted, unfinished requests taken back from the journal at start.
    public var recovered = 0
    /// Results adopted for recovered requests from workers that started them before a restart.
    public var adoptedResults = 0
    /// Outcomes workers sent again after registering (RESENT), in case the coordinator before
    /// lost them; those that answered a request taken back from the journal are
    /// ``adoptedResults`` too.
    public var resentResults = 0
    /// Marked worker heartbeats taken, each answered (a HEARTBEAT naming its mark) once what the
    /// worker sent before it is durable: the answer lets the worker stop keeping the results it
    /// sent before it. Counted as taken; an answer is withheld when durability is in doubt.
    public var resultsTakenAnswers = 0
    /// Requests a client sent again after a failover that a worker had already run (or was
    /// running) for the coordinator before, which never recorded them: answered by that run
    /// (its result, or adopted where it runs) instead of a second one.
    public var orphanRunsAdopted = 0
    /// Recovered requests adopted as running on the worker whose READY said it runs them
    /// (started for the coordinator before a restart or a failover), instead of run again.
    public var adoptedRunning = 0
    /// Journal commits that failed (the replies they held were not sent; clients resend).
    public var journalFailures = 0
    /// Workers declared dead by heartbeat expiry.
    public var workersExpired = 0
    /// Times the coordinator's own thread stalled past a heartbeat interval (its workers were
    /// excused the silence).
    public var stalls = 0
    /// Workers registered now.
    public var workers = 0
    /// Sessions pinned to a worker now.
    public var sessions = 0
    /// Requests waiting for a worker now.
    public var queued = 0
    /// Requests running on workers now.
    public var running = 0
    /// Outcomes kept until their clients acknowledge them, now.
    public var outcomesOwed = 0
    /// Finished outcomes kept for resends and duplicates now (owed ones included).
    public var outcomesKept = 0
    /// Client connections with unfinished requests now.
    public var clients = 0
    /// Open action stacks now.
    public var openStacks = 0
    /// 1 while new requests are refused for want of disk space (the journal's file system is
    /// below `minFreeDiskBytes`), 0 otherwise.
    public var storageFull = 0
    /// The free bytes of the journal's file system at the last measurement (0 without a journal).
    public var diskFreeBytes = 0
    /// Standbys configured (`--standby`).
    public var standbys = 0
    /// Standbys that hold the journal and acknowledge its commits in time now.
    public var standbysInSync = 0
    /// How long the last standby acknowledgement took from the send it answered, in
    /// microseconds (0 without standbys).
    public var standbyAckLagMicroseconds = 0
    /// Sessions whose stacks and stream counters are kept now (bounded by `stackIdleTimeout`).
    public var trackedSessions = 0
    /// Stacks closed because their session was idle for `stackIdleTimeout`.
    public var idleStacksClosed = 0
    /// Sessions ended by a client (END-SESSION).
    public var sessionsEnded = 0
    /// Performs an action ran inside another on a worker (nested), recorded and published.
    public var nestedPerforms = 0
    /// Times an operator changed the fleet-wide feature switches.
    public var featureSwitchChanges = 0
    /// Began events published (requests that started running, while someone subscribes to them).
    public var beganEvents = 0
    /// Actions forgotten because no worker served them for `forgetActionsAfter`.
    public var actionsForgotten = 0
    /// Actions known now: served by a registered worker, or lately (their requests wait).
    public var knownActions = 0
    /// Known actions no registered worker serves now: their requests wait for one.
    public var actionsWithoutWorker = 0
    /// How long the known action unserved longest has had no worker, in seconds (0: none).
    public var longestWithoutWorkerSeconds = 0

    /// All zero.
    public init() {}
}
