import ActionCoordinator
import ActionCore
import ActionWire
import Foundation
import Logging

/// The HTTP routes of a coordinator: `/healthz`, `/readyz`, `/metrics`, and the JSON APIs
/// behind `actionbus workers`, `queues`, `stacks`, `features` and `stats`.
public enum CoordinatorOperations {
    /// The coordinator's counters that are gauges (a value now), not counts.
    static let gauges: Set<String> = [
        "workers", "sessions", "queued", "running", "outcomesOwed", "outcomesKept", "clients", "openStacks", "trackedSessions",
        "knownActions", "actionsWithoutWorker", "longestWithoutWorkerSeconds",
        "storageFull", "diskFreeBytes", "standbys", "standbysInSync", "standbyAckLagMicroseconds", "streamPosition", "streamOldestPosition",
    ]

    /// The routes that carry outcomes' payloads.
    static let payloadPaths: Set<String> = ["/api/outcomes", "/api/live"]

    /// The HTTP server of `coordinator` on `address`: the dashboard at `/`, its live tail, the
    /// probes, `/metrics` and the JSON APIs. The outcomes (`/api/outcomes`, `/api/live`) are
    /// served as `payloadAccess` allows, by default only on a loopback address.
    public static func server(
        _ coordinator: Coordinator, address: String, metrics: MetricsExport, payloadAccess: PayloadAccess? = nil, logger: Logger
    ) throws -> OperationsServer {
        let tail = OutcomeTail()
        let routes = routes(coordinator, metrics: metrics).merging(dashboardRoutes(tail: tail)) { $1 }
        return try OperationsServer(
            address: address, routes: routes, webSockets: ["/api/live": tail],
            payloadPaths: payloadPaths, payloadAccess: payloadAccess ?? .default(address: address),
            background: [{ await tail.run(feed: coordinator.outcomeFeed()) }], logger: logger
        )
    }

    /// The dashboard at `/` and its tail's recent outcomes at `/api/outcomes` (the live tail,
    /// `/api/live`, is the tail itself, a WebSocket).
    static func dashboardRoutes(tail: OutcomeTail) -> [String: OperationsServer.Handler] {
        [
            "/": { _ in .text(DashboardPage.html, contentType: "text/html; charset=utf-8") },
            "/api/outcomes": { query in
                var limit = 200
                if let given = query["limit"] {
                    guard let number = Int(given), (1...tail.capacity).contains(number) else {
                        return .error(400, "limit must be a whole number from 1 to \(tail.capacity), not '\(given)'")
                    }
                    limit = number
                }
                let outcomes = tail.recent(feature: query["feature"], action: query["action"], session: query["session"], limit: limit)
                var body = Array(#"{"outcomes":["#.utf8)
                for (index, outcome) in outcomes.enumerated() {
                    if index > 0 { body.append(UInt8(ascii: ",")) }
                    body.append(contentsOf: OutcomeJSON.encode(outcome))
                }
                body.append(contentsOf: Array("]}".utf8))
                return .json(body)
            },
        ]
    }

    /// The routes for `coordinator`, exporting through `metrics`.
    public static func routes(_ coordinator: Coordinator, metrics: MetricsExport) -> [String: OperationsServer.Handler] {
        var routes = apiRoutes({ coordinator }, unavailable: { .error(503, "the coordinator has stopped serving") })
        routes["/healthz"] = { _ in .text("ok\n") }
        // Ready once the journal is recovered and the sockets are bound: both happen before
        // the coordinator exists, so a coordinator that answers on its loop is ready.
        routes["/readyz"] = { _ in
            await coordinator.isServing() ? .text("ready\n") : .error(503, "the coordinator has stopped serving")
        }
        routes["/metrics"] = { _ in
            await export(coordinator, to: metrics)
            return .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        return routes
    }

    /// The JSON APIs (`/api/stats`, `workers`, `queues`, `features`, `stacks`) of the
    /// coordinator `current` gives when asked (a group member's changes every term); when it
    /// gives none, `unavailable` answers.
    static func apiRoutes(
        _ current: @escaping @Sendable () -> Coordinator?, unavailable: @escaping @Sendable () async -> OperationsServer.Reply
    ) -> [String: OperationsServer.Handler] {
        func route(_ answer: @escaping @Sendable (Coordinator, [String: String]) async -> OperationsServer.Reply) -> OperationsServer.Handler {
            { query in
                guard let coordinator = current() else { return await unavailable() }
                return await answer(coordinator, query)
            }
        }
        return [
            "/api/stats": route { coordinator, _ in .json(json(await coordinator.statistics())) },
            "/api/workers": route { coordinator, _ in .json(json(await coordinator.workers())) },
            "/api/queues": route { coordinator, _ in .json(json(await coordinator.queues())) },
            "/api/features": route { coordinator, _ in .json(await coordinator.featuresJSON()) },
            "/api/stacks": route { coordinator, query in
                let session = query["session"]
                if let session {
                    do {
                        try WireName.check(session, field: "session", allowEmpty: true)
                    } catch {
                        return .error(400, "session: \((error as? WireError)?.message ?? "\(error)")")
                    }
                }
                guard let report = try? await coordinator.stacks(session: session?.isEmpty == true ? nil : session).jsonData() else {
                    return .error(500, "the stacks report could not be encoded")
                }
                return .json(Array(report))
            },
        ]
    }

    /// Everything `/metrics` shows beyond what the coordinator records as it works: its counters
    /// and gauges, each worker's load, and each action's queue.
    static func export(_ coordinator: Coordinator, to metrics: MetricsExport) async {
        metrics.export(await coordinator.statistics(), prefix: "actionbus", gauges: gauges)
        var inFlight: [String: Int] = [:], credits: [String: Int] = [:]
        for worker in await coordinator.workers().workers {
            inFlight[worker.name, default: 0] += worker.inFlight
            credits[worker.name, default: 0] += worker.credits
        }
        metrics.gauges("actionbus_worker_in_flight", label: "worker", inFlight)
        metrics.gauges("actionbus_worker_credits", label: "worker", credits)
        // Actions the fleet never served are named by clients: they count as `other`.
        var queued: [String: Int] = [:], running: [String: Int] = [:], withoutWorker: [String: Int] = [:]
        let now = Date()
        for action in await coordinator.queues().actions {
            let name = action.workers > 0 || action.noWorkerSince != nil ? action.action : "other"
            queued[name, default: 0] += action.queued
            running[name, default: 0] += action.running
            if let since = action.noWorkerSince.flatMap({ try? Date($0, strategy: .iso8601) }) {
                withoutWorker[name] = max(0, Int(now.timeIntervalSince(since)))
            }
        }
        metrics.gauges("actionbus_action_queued", label: "action", queued)
        metrics.gauges("actionbus_action_running", label: "action", running)
        // A known action with no worker: its requests wait; alert on how long.
        metrics.gauges("actionbus_action_without_worker_seconds", label: "action", withoutWorker)
    }

    static func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { Array($0) } ?? Array("{}".utf8)
    }
}
