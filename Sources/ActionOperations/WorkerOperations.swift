import ActionWorker
import Foundation

/// The HTTP routes of a worker: `/healthz`, `/readyz` (registered with a coordinator),
/// `/metrics` and `/api/stats`.
public enum WorkerOperations {
    static let gauges: Set<String> = ["running", "sessions"]

    /// The routes for `worker`, exporting through `metrics`.
    public static func routes(_ worker: Worker, metrics: MetricsExport) -> [String: OperationsServer.Handler] {
        [
            "/healthz": { _ in .text("ok\n") },
            "/readyz": { _ in
                await worker.statistics().registered ? .text("ready\n") : .error(503, "not registered with a coordinator yet")
            },
            "/metrics": { _ in
                export(await worker.statistics(), name: worker.name, to: metrics)
                return .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
            },
            "/api/stats": { _ in .json(CoordinatorOperations.json(await worker.statistics())) },
        ]
    }

    /// A worker's counters, labelled with its name (several workers may share a process).
    static func export(_ statistics: WorkerStatistics, name: String, to metrics: MetricsExport) {
        metrics.export(statistics, prefix: "actionbus_worker", gauges: gauges, dimensions: [("worker", name)])
        metrics.gauge("actionbus_worker_registered", statistics.registered ? 1 : 0, dimensions: [("worker", name)])
    }
}
