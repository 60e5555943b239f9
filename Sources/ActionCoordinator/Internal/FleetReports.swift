import ActionCore
import ActionWire
import Foundation

/// The coordinator's reports for people (`actionbus features`, `workers`, `queues`, `stacks`,
/// the dashboard): pure functions over the core's state, read only, each cut to fit one message
/// (`maxMessageBytes` less room for the envelope) so that a large fleet's report never costs a
/// client its connection. Queries, not the hot path.
enum FleetReports {
    /// Room left in a message for its envelope.
    static let envelopeBytes = 1024

    /// The FEATURES report: every feature `workers` serve (its actions, how many workers serve
    /// it, its switch, what their catalogs say of it) and the switches of features no worker
    /// serves now. Too large for one message, the catalogs' details go first, then features.
    static func featuresJSON(
        workers: some Collection<WorkerRecord>, switches: [String: FeatureSwitch], maxMessageBytes: Int
    ) -> [UInt8] {
        var actionsByFeature: [String: Set<String>] = [:]
        var workersByFeature: [String: Int] = [:]
        for worker in workers {
            var features: Set<String> = []
            for action in worker.actions {
                let feature = String(action.prefix { $0 != "." })
                actionsByFeature[feature, default: []].insert(action)
                features.insert(feature)
            }
            for feature in features { workersByFeature[feature, default: 0] += 1 }
        }
        // What the catalogs say, the first worker's that describes each feature or action.
        var describedFeatures: [String: WorkerCatalog.Feature] = [:]
        var describedActions: [String: WorkerCatalog.Action] = [:]
        for worker in workers.sorted(by: { $0.name < $1.name }) {
            guard let catalog = worker.catalog else { continue }
            for feature in catalog.features where describedFeatures[feature.name] == nil { describedFeatures[feature.name] = feature }
            for action in catalog.actions where describedActions[action.name] == nil { describedActions[action.name] = action }
        }
        let report = FleetFeaturesReport(
            features: actionsByFeature.keys.sorted().map { name in
                let actions = actionsByFeature[name]!.sorted()
                var feature = FleetFeaturesReport.Feature(
                    name: name, actions: actions, workers: workersByFeature[name] ?? 0,
                    switched: switches[name].map { $0 == .on ? "on" : "off" }
                )
                if let described = describedFeatures[name] {
                    feature.description = described.description
                    feature.parent = described.parent
                    feature.conditional = described.conditional
                }
                let details = actions.compactMap { describedActions[$0] }
                if !details.isEmpty { feature.details = details }
                return feature
            },
            switches: switches.mapValues { $0 == .on ? "on" : "off" }
        )
        let full = json(report)
        if full.count <= maxMessageBytes - envelopeBytes { return full }
        var plain = report
        plain.features = report.features.map { var feature = $0; feature.details = nil; return feature }
        return fitted(count: plain.features.count, maxMessageBytes: maxMessageBytes) { kept in
            var cut = plain
            cut.features = Array(plain.features.prefix(kept))
            cut.omittedFeatures = kept < plain.features.count ? plain.features.count - kept : nil
            return cut
        }
    }

    /// Every registered worker, by name.
    static func workers(_ workers: some Collection<WorkerRecord>, now: ContinuousClock.Instant) -> FleetWorkersReport {
        FleetWorkersReport(workers: workers.map { worker in
            FleetWorkersReport.Worker(
                name: worker.name, id: RoutingIDText.of(worker.id.routingID),
                protocolName: worker.protocolName ?? "ABP/\(WireHeader.version)",
                actions: worker.actions.sorted(), credits: worker.credits, inFlight: worker.inFlight.count,
                sessions: worker.sessions.count, lastHeardMs: Int((now - worker.lastHeard) / .milliseconds(1)),
                draining: worker.isDraining, unreachable: worker.isUnreachable
            )
        }.sorted { ($0.name, $0.id) < ($1.name, $1.id) })
    }

    /// The WORKERS reply: `report`, its first workers when all do not fit.
    static func workersJSON(_ report: FleetWorkersReport, maxMessageBytes: Int) -> [UInt8] {
        fitted(count: report.workers.count, maxMessageBytes: maxMessageBytes) { kept in
            var cut = report
            cut.workers = Array(report.workers.prefix(kept))
            cut.omittedWorkers = kept < report.workers.count ? report.workers.count - kept : nil
            return cut
        }
    }

    /// What waits and runs per action, and the sessions with the most waiting. Walks the queued
    /// and running requests once.
    static func queues(
        lanes: [Lane: LaneQueue], workers: [WorkerID: WorkerRecord], sessions: [String: SessionPin], queued queuedCount: Int,
        running runningCount: Int, unservedSince: [String: Date]
    ) -> FleetQueuesReport {
        var queued: [String: Int] = [:], running: [String: Int] = [:], serving: [String: Int] = [:]
        var sessionDepths: [(session: String, depth: Int)] = []
        for (lane, queue) in lanes {
            let waiting = queue.requests.filter { !$0.isFinished && $0.placement == .queued }
            guard !waiting.isEmpty else { continue }
            switch lane {
            case .action(let action):
                queued[action, default: 0] += waiting.count
            case .session(let session):
                sessionDepths.append((session, waiting.count))
                for pending in waiting { queued[pending.action, default: 0] += 1 }
            }
        }
        for worker in workers.values {
            for action in worker.actions { serving[action, default: 0] += 1 }
            for pending in worker.inFlight.requests where !pending.isFinished { running[pending.action, default: 0] += 1 }
        }
        let names = Set(queued.keys).union(running.keys).union(serving.keys).union(unservedSince.keys).sorted()
        sessionDepths.sort { ($0.depth, $1.session) > ($1.depth, $0.session) }
        let listed = sessionDepths.prefix(FleetQueuesReport.maxSessions)
        return FleetQueuesReport(
            actions: names.map { name in
                FleetQueuesReport.ActionQueue(
                    action: name, queued: queued[name] ?? 0, running: running[name] ?? 0, workers: serving[name] ?? 0,
                    noWorkerSince: unservedSince[name].map(CoordinatorCore.timestamp)
                )
            },
            sessions: listed.map { entry in
                FleetQueuesReport.SessionQueue(
                    session: entry.session, queued: entry.depth,
                    worker: sessions[entry.session].flatMap { workers[$0.worker]?.name }
                )
            },
            omittedSessions: sessionDepths.count - listed.count,
            queued: queuedCount, running: runningCount
        )
    }

    /// The QUEUES reply: `report`, its busiest actions when all do not fit.
    static func queuesJSON(_ report: FleetQueuesReport, maxMessageBytes: Int) -> [UInt8] {
        let busiest = report.actions.sorted { ($0.queued + $0.running, $1.action) > ($1.queued + $1.running, $0.action) }
        return fitted(count: report.actions.count, maxMessageBytes: maxMessageBytes) { kept in
            var cut = report
            if kept < report.actions.count {
                cut.actions = busiest.prefix(kept).sorted { $0.action < $1.action }
                cut.omittedActions = report.actions.count - kept
            }
            return cut
        }
    }

    /// A stacks report as JSON, cut to the newest stacks that fit in one message (the report
    /// says how many were left out).
    static func stacksJSON(_ full: ActionStacksReport, maxMessageBytes: Int) -> [UInt8] {
        let limit = maxMessageBytes - envelopeBytes
        var report = full
        while true {
            guard let json = try? report.jsonData() else { return Array("{\"stacks\":[]}".utf8) }
            if json.count <= limit || report.stacks.isEmpty { return Array(json) }
            let kept = report.stacks.count / 2
            report = ActionStacksReport(stacks: Array(full.stacks.suffix(kept)), omittedStacks: full.stacks.count - kept)
        }
    }

    /// The JSON of `make(kept)` for the most items kept that fits in one message (halving until
    /// it does).
    static func fitted<Report: Encodable>(count: Int, maxMessageBytes: Int, _ make: (Int) -> Report) -> [UInt8] {
        var kept = count
        while true {
            let json = json(make(kept))
            if json.count <= maxMessageBytes - envelopeBytes || kept == 0 { return json }
            kept /= 2
        }
    }

    /// A report as compact JSON with sorted keys.
    static func json(_ report: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(report)).map { Array($0) } ?? Array("{}".utf8)
    }
}
