import ActionCoordinator
import ActionOperations
import ActionWorker
import ArgumentParser
import ExampleFeatures
import Foundation
import ZeroMQ

/// `actionbus dev`: a coordinator and N workers in one process, for trying the bus locally.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev", abstract: "Run a coordinator and N example workers in one process until SIGINT or SIGTERM."
    )

    @Option(help: "How many workers to start.")
    var workers = 2
    @Option(help: "Credits per worker.")
    var credits: UInt32 = 64
    @Option(help: "Endpoint clients connect to.")
    var clients = "tcp://127.0.0.1:5555"
    @Option(name: .customLong("workers-endpoint"), help: "Endpoint workers connect to.")
    var workersEndpoint = "tcp://127.0.0.1:5556"
    @Option(help: "Endpoint subscribers connect to.")
    var outcomes = "tcp://127.0.0.1:5557"
    @OptionGroup var tuning: CoordinatorTuning
    @OptionGroup var journal: JournalOptions
    @Option(help: ArgumentHelp("Serve the coordinator's /healthz, /readyz, /metrics and /api/... on HOST:PORT.", valueName: "host:port"))
    var http = "127.0.0.1:8080"
    @Flag(help: "Serve no HTTP.")
    var noHTTP = false
    @OptionGroup var payloadAccess: PayloadAccessOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1") }
        guard credits >= 1 else { throw ValidationError("--credits must be at least 1") }
        if !noHTTP { _ = try OperationsServer.parse(http) }
    }

    func run() async throws {
        let logger = logging.bootstrap(label: "actionbus.dev", defaultLevel: .info)
        let context = try ZMQContext()
        var configuration = tuning.configuration
        configuration.clientsEndpoint = clients
        configuration.workersEndpoint = workersEndpoint
        configuration.outcomesEndpoint = outcomes
        journal.apply(to: &configuration)
        if configuration.dataDirectory == nil {
            logger.notice("the journal is off (--no-journal): requests accepted but unfinished are lost if the bus stops")
        }
        let access = noHTTP ? nil : try payloadAccess.access(address: http, logger: logger)
        let metrics = noHTTP ? nil : HTTPOptions.bootstrapMetrics()
        configuration.recordsMetrics = metrics != nil
        let coordinator = try Coordinator(configuration: configuration, context: context, logger: logger)
        let server = try metrics.map { metrics in
            try CoordinatorOperations.server(coordinator, address: http, metrics: metrics, payloadAccess: access, logger: logger)
        }
        var started: [Worker] = []
        for index in 1...workers {
            var workerConfiguration = WorkerConfiguration()
            workerConfiguration.coordinatorEndpoint = coordinator.endpoints.workers
            workerConfiguration.credits = credits
            workerConfiguration.heartbeatInterval = configuration.heartbeatInterval
            workerConfiguration.name = "\(WorkerConfiguration.defaultName)-w\(index)"
            started.append(try Worker(catalog: ExampleApp.catalog, configuration: workerConfiguration, context: context, logger: logger))
        }
        let workerSet = started
        printLine("""
            ActionBus dev: coordinator + \(workers) worker(s) serving \(ExampleApp.catalog.actionNames.count) example actions.
              clients  \(coordinator.endpoints.clients)
              workers  \(coordinator.endpoints.workers)
              outcomes \(coordinator.endpoints.outcomes)
              dashboard \(server.map { "http://\($0.address)/ (and /metrics, /api/...)" } ?? "off (--no-http)")
            Try, in another terminal:
              actionbus perform Echo.say --input '{"text":"hi"}'
            Press Ctrl-C to stop.
            """)
        // Shut down in reverse: the HTTP side, then the workers (they drain), then the coordinator.
        try await runServices([coordinator] + workerSet + (server.map { [$0] } ?? []), logger: logger)
        logger.info("dev bus stopped")
    }
}
