import ActionOperations
import ArgumentParser
import Logging
import Metrics
import Prometheus

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

/// Runs `service` and, beside it, the HTTP `server` when there is one; ends when the service
/// ends (or either fails), stopping the other.
func runAlongside(_ server: OperationsServer?, _ service: @escaping @Sendable () async throws -> Void) async throws {
    guard let server else {
        try await service()
        return
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await service() }
        group.addTask { try await server.run() }
        defer { group.cancelAll() }
        try await group.next()
    }
}
