import ActionCoordinator
import ActionOperations
import ArgumentParser

/// `actionbus coordinator`: the router, stack tracker and outcome stream.
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator", abstract: "Run a coordinator until SIGINT or SIGTERM."
    )

    @Option(help: "Endpoint clients connect to (tcp://*:5555 exposes it).")
    var clients = "tcp://127.0.0.1:5555"
    @Option(help: "Endpoint workers connect to.")
    var workers = "tcp://127.0.0.1:5556"
    @Option(help: "Endpoint subscribers connect to.")
    var outcomes = "tcp://127.0.0.1:5557"
    @OptionGroup var tuning: CoordinatorTuning
    @OptionGroup var journal: JournalOptions
    @OptionGroup var replication: ReplicationOptions
    @OptionGroup var groupOptions: GroupOptions
    @OptionGroup var curve: CurveServerOptions
    @OptionGroup var httpOptions: HTTPOptions
    @OptionGroup var payloadAccess: PayloadAccessOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if !replication.standbys.isEmpty, journal.noJournal {
            throw ValidationError("--standby replicates the journal: it cannot go with --no-journal")
        }
        if groupOptions.isGroup {
            if journal.noJournal { throw ValidationError("--group replicates the journal: it cannot go with --no-journal") }
            if !replication.standbys.isEmpty { throw ValidationError("--group makes the other members the standbys: leave out --standby") }
            if replication.standbyOptional { throw ValidationError("--group chooses with --min-in-sync-standbys: leave out --standby-optional") }
        }
    }

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.coordinator", defaultLevel: .info)
        let access = try httpOptions.http.map { try payloadAccess.access(address: $0, logger: logger) }
        var configuration = tuning.configuration
        configuration.clientsEndpoint = clients
        configuration.workersEndpoint = workers
        configuration.outcomesEndpoint = outcomes
        configuration.curve = try curve.keys()
        journal.apply(to: &configuration)
        replication.apply(to: &configuration)
        if configuration.curve == nil {
            logger.notice("CURVE is off: the three sockets are plaintext and accept anyone who can reach them")
        }
        if configuration.dataDirectory == nil {
            logger.notice("the journal is off (--no-journal): requests accepted but unfinished are lost if the coordinator dies")
        }
        let metrics = httpOptions.http.map { _ in HTTPOptions.bootstrapMetrics() }
        configuration.recordsMetrics = metrics != nil
        if groupOptions.isGroup {
            let member = try GroupMember(configuration: groupOptions.configuration(coordinator: configuration, dataDirectory: journal.dataDir), logger: logger)
            let server = try httpOptions.http.map { address in
                try GroupOperations.server(member, address: address, metrics: metrics!, payloadAccess: access, logger: logger)
            }
            try await runServices([member] + (server.map { [$0] } ?? []), logger: logger)
            logger.info("group member stopped")
            return
        }
        let coordinator = try Coordinator(configuration: configuration, logger: logger)
        let server = try httpOptions.http.map { address in
            try CoordinatorOperations.server(coordinator, address: address, metrics: metrics!, payloadAccess: access, logger: logger)
        }
        try await runServices([coordinator] + (server.map { [$0] } ?? []), logger: logger)
        logger.info("coordinator stopped")
    }
}

/// Coordinator knobs shared by `coordinator` and `dev`.
struct CoordinatorTuning: ParsableArguments {
    @Option(help: "Requests accepted and unfinished (queued or running) before new ones fail 'overloaded'.")
    var maxQueued = 1_000_000
    @Option(help: "The share of --max-queued one client connection may hold.")
    var maxQueuedPerClient = 100_000
    @Option(help: "The longest timeout a request may ask for, in seconds; longer ones are cut to it.")
    var maxTimeout: Double = 3600
    @Option(help: "Seconds a request for an action no registered worker serves waits for one before it fails 'noWorker' (raise it when workers start late).")
    var noWorkerGrace: Double = 2
    @Option(help: "How long an action stays known after the last worker serving it left (500ms, 30s, 15m, 24h, 7d or never). Requests for a known action wait for a worker; those for an unknown one fail 'noWorker' after --no-worker-grace.")
    var forgetActionsAfter = DurationArgument(.seconds(24 * 3600))
    @Option(help: "How long a request for a known action no worker serves may wait for one before it fails 'noWorker' (default: its deadline).")
    var maxWaitForWorker: DurationArgument?
    @Option(help: "Heartbeat interval in milliseconds.")
    var heartbeatMs = 1000
    @Option(help: "Deliveries to dying workers before a request fails 'poisoned'.")
    var maxDeliveries = 3
    @Option(help: "Largest message accepted, in bytes.")
    var maxMessageBytes = 1 << 20
    @Option(help: "Outcome messages queued per subscriber before the stream drops (and counts) for it.")
    var outcomeHwm: Int32 = 10_000
    @Option(help: "Messages queued per client or worker connection; replies past it wait in the coordinator.")
    var peerHwm: Int32 = 100_000
    @Option(help: "Seconds a session may finish nothing before its open action stacks are closed.")
    var stackIdleSeconds: Double = 1800
    @Option(help: "Seconds a session with nothing queued or running keeps its worker before it is unpinned.")
    var sessionIdleSeconds: Double = 300

    @Option(help: "Seconds a Majordomo worker may be silent while it runs a request before it is declared dead (its request is requeued).")
    var majordomoBusySeconds: Double = 60

    @Option(help: "Milliseconds a recorded request waits before ACCEPTED goes to its ActionBus client; it goes only if the request has no outcome by then (0: at once, always).")
    var acceptanceDelayMs = 100

    @Option(help: "How long requests taken back from the journal wait after a start for the worker running them (started for the coordinator before: this one before a restart, a group's former leader) to say so in its READY, so they run once (0s: no wait).")
    var adoptionHold = DurationArgument(.seconds(6))

    @Option(help: "Outcomes of the stream kept so that subscribers can resume from a position (subscribe --from); journaled, so kept across restarts and failovers (0: none).")
    var streamHistory = 100_000
    @Option(help: "The most bytes of the stream's outcomes kept (64MiB, 1GiB); the oldest go first.")
    var streamHistoryBytes = ByteSize(bytes: 64 << 20)
    @Option(help: "How long the stream's outcomes are kept (30m, 24h, 7d or never: until --stream-history evicts them).")
    var streamHistoryAge = DurationArgument(.seconds(24 * 3600))

    var configuration: CoordinatorConfiguration {
        var configuration = CoordinatorConfiguration()
        configuration.majordomoBusyTimeout = .milliseconds(Int64(majordomoBusySeconds * 1000))
        configuration.acceptanceDelay = .milliseconds(acceptanceDelayMs)
        configuration.maxQueued = maxQueued
        configuration.maxQueuedPerClient = maxQueuedPerClient
        configuration.maxTimeout = .milliseconds(Int64(maxTimeout * 1000))
        configuration.noWorkerGrace = .milliseconds(Int64(noWorkerGrace * 1000))
        configuration.forgetActionsAfter = forgetActionsAfter.duration
        configuration.maxWaitForWorker = maxWaitForWorker?.duration
        configuration.heartbeatInterval = .milliseconds(heartbeatMs)
        configuration.maxDeliveries = maxDeliveries
        configuration.maxMessageBytes = maxMessageBytes
        configuration.outcomeHighWaterMark = outcomeHwm
        configuration.peerHighWaterMark = peerHwm
        configuration.stackIdleTimeout = .milliseconds(Int64(stackIdleSeconds * 1000))
        configuration.sessionIdleTimeout = .milliseconds(Int64(sessionIdleSeconds * 1000))
        configuration.adoptionHold = adoptionHold.duration ?? .zero
        configuration.streamHistory = streamHistory
        configuration.streamHistoryBytes = streamHistoryBytes.bytes
        configuration.streamHistoryAge = streamHistoryAge.duration
        return configuration
    }

    func validate() throws {
        if let maxWaitForWorker, maxWaitForWorker.duration == nil {
            throw ValidationError("--max-wait-for-worker takes a duration (30s, 5m); leave it out to wait until each request's deadline")
        }
        guard maxQueued > 0, maxQueuedPerClient > 0, heartbeatMs > 0, maxDeliveries > 0, maxMessageBytes > 0, outcomeHwm > 0, peerHwm > 0,
              maxTimeout > 0, noWorkerGrace >= 0, stackIdleSeconds > 0, sessionIdleSeconds > 0, majordomoBusySeconds > 0,
              acceptanceDelayMs >= 0, streamHistory >= 0, streamHistoryBytes.bytes > 0 else {
            throw ValidationError("""
                --max-queued, --max-queued-per-client, --heartbeat-ms, --max-deliveries, --max-message-bytes, --outcome-hwm \
                --max-timeout, --stack-idle-seconds, --session-idle-seconds, --majordomo-busy-seconds and --stream-history-bytes must be positive; --no-worker-grace, --acceptance-delay-ms and --stream-history must not be negative
                """)
        }
    }
}
