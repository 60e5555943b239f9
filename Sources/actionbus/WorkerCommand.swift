import ActionCore
import ActionOperations
import ActionWorker
import ArgumentParser
import ExampleFeatures

/// `actionbus worker`: a worker hosting the example features, for trying and testing the bus.
/// A real worker is an executable of the user's own around their features (Examples/CustomWorker).
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run a worker hosting the example features (--examples) until SIGINT or SIGTERM.",
        discussion: """
            A worker serves the features it is built with. This command has only the example features; \
            your own features need a worker executable of your own: a few lines around ActionWorker's Worker \
            (see Examples/CustomWorker in the ActionBus repository).
            """
    )

    @Flag(help: "Host the example features (Echo, Clock, Math, Sequence, Documents, Labs).")
    var examples = false
    @Flag(help: "Also host Fault.* (fail, hang, crash, flaky, oversize): any client may then crash or hang this worker. For tests only.")
    var faultInjection = false
    @Option(help: "The coordinator's workers endpoint.")
    var coordinator = "tcp://127.0.0.1:5556"
    @Option(help: "How many requests run at once.")
    var credits: UInt32 = 64
    @Option(help: "The worker's name in outcomes (default: host-pid).")
    var name: String?
    @Option(help: "Heartbeat interval in milliseconds.")
    var heartbeatMs = 1000
    @Option(help: "Seconds a stopping worker (SIGTERM) lets running requests finish before it leaves.")
    var graceSeconds: Double = 30
    @OptionGroup var curve: CurveClientOptions
    @OptionGroup var httpOptions: HTTPOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard examples else {
            throw ValidationError("""
                this worker has only the example features: pass --examples to host them (and --fault-injection, \
                for tests, to add Fault.*). To serve your own features, build a worker executable around them with \
                ActionWorker (see Examples/CustomWorker).
                """)
        }
        guard credits > 0 else { throw ValidationError("--credits must be at least 1") }
        guard heartbeatMs > 0 else { throw ValidationError("--heartbeat-ms must be positive") }
        guard graceSeconds >= 0 else { throw ValidationError("--grace-seconds must not be negative") }
    }

    /// The actions it serves.
    var catalog: ActionCatalog {
        faultInjection ? ExampleApp.catalog : ExampleApp.harmlessCatalog
    }

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.worker", defaultLevel: .info)
        var configuration = WorkerConfiguration()
        configuration.coordinatorEndpoint = coordinator
        configuration.credits = credits
        configuration.heartbeatInterval = .milliseconds(heartbeatMs)
        configuration.drainGrace = .milliseconds(Int64(graceSeconds * 1000))
        if let name { configuration.name = name }
        configuration.curve = try curve.keys()
        if faultInjection {
            logger.warning("--fault-injection: this worker serves Fault.*, so any client may crash or hang it")
        }
        let metrics = httpOptions.http.map { _ in HTTPOptions.bootstrapMetrics() }
        let worker = try Worker(catalog: catalog, configuration: configuration, logger: logger)
        let server = try httpOptions.http.map { address in
            try OperationsServer(address: address, routes: WorkerOperations.routes(worker, metrics: metrics!), logger: logger)
        }
        try await runServices([worker] + (server.map { [$0] } ?? []), logger: logger)
    }
}
