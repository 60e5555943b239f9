import ActionOperations
import ArgumentParser
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `--http HOST:PORT`: the HTTP side of a long-running command (health, readiness, metrics, APIs).
struct HTTPOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Serve /healthz, /readyz, /metrics (Prometheus) and /api/... on HOST:PORT (off unless given).", valueName: "host:port"))
    var http: String?

    func validate() throws {
        if let http { _ = try OperationsServer.parse(http) }
    }

    /// The metrics export, after bootstrapping swift-metrics with a Prometheus registry: once per
    /// process, before any metric is made; `nil` without `--http`.
    static func bootstrapMetrics() -> MetricsExport {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Request times from under a millisecond to a minute; journal commits from 10 µs to a second.
        factory.durationHistogramBuckets["actionbus_request_duration_seconds"] = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .seconds(2.5), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
        ]
        factory.durationHistogramBuckets["actionbus_journal_commit_duration_seconds"] = [
            .microseconds(10), .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .seconds(1),
        ]
        MetricsSystem.bootstrap(factory)
        return MetricsExport(registry: registry)
    }
}

/// Runs `services` as a swift-service-lifecycle `ServiceGroup` until SIGTERM or SIGINT, which
/// begin a graceful shutdown (in reverse order: the HTTP side first, the coordinator last), or
/// until one of them ends or fails, which stops the others.
func runServices(_ services: [any Service], logger: Logger) async throws {
    var quiet = logger
    quiet.logLevel = max(logger.logLevel, .notice)
    let group = ServiceGroup(configuration: ServiceGroupConfiguration(
        services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: quiet
    ))
    try await group.run()
}
