import ActionOperations
import ActionWorker
import ArgumentParser
import ExampleFeatures

/// `actionbus worker`: hosts the example features.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker", abstract: "Run a worker hosting the example features until SIGINT or SIGTERM."
    )

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
        guard credits > 0 else { throw ValidationError("--credits must be at least 1") }
        guard heartbeatMs > 0 else { throw ValidationError("--heartbeat-ms must be positive") }
        guard graceSeconds >= 0 else { throw ValidationError("--grace-seconds must not be negative") }
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
        let metrics = httpOptions.http.map { _ in HTTPOptions.bootstrapMetrics() }
        let worker = try Worker(catalog: ExampleApp.catalog, configuration: configuration, logger: logger)
        let server = try httpOptions.http.map { address in
            try OperationsServer(address: address, routes: WorkerOperations.routes(worker, metrics: metrics!), logger: logger)
        }
        try await runServices([worker] + (server.map { [$0] } ?? []), logger: logger)
    }
}
