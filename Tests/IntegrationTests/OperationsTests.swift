import ActionBusTestSupport
import Foundation
import Testing

/// What operators run: `actionbus workers`, `actionbus queues`, and logs for collectors.
@Suite("Operations", .serialized, .timeLimit(.minutes(3)))
struct OperationsTests {
    @Test func workersAndQueuesShowTheFleetAsTablesAndJSON() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        try bus.startWorker("w1", coordinator: coordinator, ["--credits", "2"])
        func query(_ arguments: [String]) throws -> String {
            let process = try bus.start("query-\(UUID().uuidString.prefix(6))", arguments + ["--coordinator", bus.clients])
            try expect(process.waitForExit() == 0, "\(arguments) failed: \(process.stderr)")
            return process.stdout
        }
        var queues: [String: Any] = [:]
        func queuesHold(queued: Int, running: Int) throws -> Bool {
            try waitUntil(interval: .milliseconds(200)) {
                queues = try JSONSerialization.jsonObject(with: Data(try query(["queues", "--json"]).utf8)) as? [String: Any] ?? [:]
                return queues["queued"] as? Int == queued && queues["running"] as? Int == running
            }
        }
        // Two run (and sleep), two wait; then one more waits, in a session.
        let load = try bus.start("load", ["perform", "Clock.sleep", "--input", #"{"ms":4000}"#, "--count", "4", "--concurrency", "4", "--coordinator", bus.clients])
        try expect(try queuesHold(queued: 2, running: 2), "the queue never held 2 waiting and 2 running: \(queues)")
        let inSession = try bus.start("load-session", ["perform", "Clock.sleep", "--input", #"{"ms":10}"#, "--session", "ops-1", "--coordinator", bus.clients])
        try expect(try queuesHold(queued: 3, running: 2), "the queue never held 3 waiting and 2 running: \(queues)")
        let sleep = (queues["actions"] as? [[String: Any]])?.first { $0["action"] as? String == "Clock.sleep" }
        #expect(sleep?["queued"] as? Int == 3 && sleep?["running"] as? Int == 2 && sleep?["workers"] as? Int == 1)
        #expect((queues["sessions"] as? [[String: Any]])?.first?["session"] as? String == "ops-1")
        let table = try query(["queues"])
        #expect(table.contains("ACTION") && table.contains("Clock.sleep") && table.contains("ops-1"), "\(table)")

        let workers = try JSONSerialization.jsonObject(with: Data(try query(["workers", "--json"]).utf8)) as? [String: Any]
        let listed = workers?["workers"] as? [[String: Any]] ?? []
        #expect(listed.map { $0["name"] as? String } == ["w1"])
        #expect(listed.first?["inFlight"] as? Int == 2 && listed.first?["credits"] as? Int == 2)
        #expect((listed.first?["actions"] as? [String])?.contains("Echo.say") == true)
        let workersTable = try query(["workers"])
        #expect(workersTable.contains("w1") && workersTable.contains("2/2") && workersTable.contains("ready"), "\(workersTable)")

        #expect(load.waitForExit(timeout: .seconds(30)) == 0, "\(load.stderr)")
        #expect(inSession.waitForExit(timeout: .seconds(30)) == 0, "\(inSession.stderr)")
    }

    @Test func coordinatorAndWorkerServeHealthReadinessMetricsAndAPIs() throws {
        let bus = try BusFixture()
        let coordinatorHTTP = try freeLoopbackPort(), workerHTTP = try freeLoopbackPort()
        let coordinator = try bus.startCoordinator(["--http", "127.0.0.1:\(coordinatorHTTP)"])
        try expect(waitUntil { httpRequest(port: coordinatorHTTP, path: "/healthz")?.status == 200 }, "no /healthz: \(coordinator.stderr)")
        #expect(httpRequest(port: coordinatorHTTP, path: "/readyz")?.status == 200)
        let worker = try bus.start("w1", ["worker", "--examples", "--fault-injection", "--coordinator", bus.workers, "--name", "w1", "--http", "127.0.0.1:\(workerHTTP)"])
        try expect(waitUntil { httpRequest(port: workerHTTP, path: "/readyz")?.status == 200 }, "the worker never became ready: \(worker.stderr)")

        let perform = try bus.perform("Echo.say", ["--input", #"{"text":"hi"}"#, "--count", "5"])
        #expect(perform.process.terminationStatus == 0, "\(perform.stderr)")
        _ = try bus.perform("Fault.fail", ["--input", #"{"message":"boom"}"#])

        let metrics = try #require(httpRequest(port: coordinatorHTTP, path: "/metrics"))
        #expect(metrics.status == 200)
        for line in [
            #"actionbus_outcomes_total{action="Echo.say",result="success"} 5"#,
            #"actionbus_outcomes_total{action="Fault.fail",result="actionFailed"} 1"#,
            "actionbus_accepted_total 6", "actionbus_workers 1.0", "actionbus_request_duration_seconds_count 6",
            #"actionbus_worker_in_flight{worker="w1"} 0.0"#, #"actionbus_action_queued{action="Echo.say"} 0.0"#,
        ] {
            #expect(metrics.body.contains(line), "\(line) missing from /metrics:\n\(metrics.body)")
        }
        #expect(metrics.body.contains("actionbus_journal_commit_duration_seconds_bucket"))
        let workerMetrics = try #require(httpRequest(port: workerHTTP, path: "/metrics"))
        #expect(workerMetrics.body.contains(#"actionbus_worker_completed_total{worker="w1"} 6"#), "\(workerMetrics.body)")

        let workers = try #require(httpRequest(port: coordinatorHTTP, path: "/api/workers"))
        let listed = (try JSONSerialization.jsonObject(with: Data(workers.body.utf8)) as? [String: Any])?["workers"] as? [[String: Any]]
        #expect(listed?.map { $0["name"] as? String } == ["w1"])
        #expect(httpRequest(port: coordinatorHTTP, path: "/api/queues")?.body.contains(#""queued":0"#) == true)
        // Bad requests get a 4xx with a message, never a crash.
        let missing = try #require(httpRequest(port: coordinatorHTTP, path: "/api/nothing"))
        #expect(missing.status == 404 && missing.body.contains("error"))
        #expect(httpRequest("POST", port: coordinatorHTTP, path: "/metrics")?.status == 405)
        #expect(httpRequest(port: coordinatorHTTP, path: "/api/stacks?session=%01")?.status == 400)
        #expect(httpRequest(port: coordinatorHTTP, path: "/healthz")?.status == 200, "still serving")
    }

    @Test func aWorkerIsNotReadyUntilACoordinatorRegistersIt() throws {
        let bus = try BusFixture()
        let http = try freeLoopbackPort()
        let worker = try bus.start("w1", ["worker", "--examples", "--fault-injection", "--coordinator", bus.workers, "--name", "w1", "--http", "127.0.0.1:\(http)"])
        try expect(waitUntil { httpRequest(port: http, path: "/healthz")?.status == 200 }, "no HTTP: \(worker.stderr)")
        #expect(httpRequest(port: http, path: "/readyz")?.status == 503, "no coordinator yet")
        let coordinator = try bus.startCoordinator(["--no-journal"])
        #expect(waitUntil { httpRequest(port: http, path: "/readyz")?.status == 200 }, "\(coordinator.stderr)")
    }

    @Test func aQueryWithoutACoordinatorSaysWhatFailedAndWhatToCheck() throws {
        let bus = try BusFixture()
        let query = try bus.start("workers", [
            "workers", "--timeout", "0.5", "--coordinator", bus.clients, "--log-format", "json", "--log-level", "info",
        ])
        #expect(query.waitForExit(timeout: .seconds(20)) == 2)
        #expect(query.stdout.isEmpty, "no report")
        let unanswered = query.logRecords(withField: "error.code").last
        #expect(unanswered?.fields["error.code"] == "unreachable", "\(query.stderr)")
        #expect(unanswered?.fields["coordinator.endpoint"] == bus.clients, "\(query.stderr)")
    }

    @Test func logsCanBeOneJSONObjectPerLine() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        let worker = try bus.start("w1", ["worker", "--examples", "--fault-injection", "--coordinator", bus.workers, "--name", "w1", "--log-format", "json", "--log-level", "info"])
        try bus.awaitWorker("w1", coordinator: coordinator, process: worker)
        try expect(waitUntil { !worker.stderr.isEmpty }, "the worker logged nothing")
        let lines = worker.stderr.split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count, "every line is a JSON object: \(worker.stderr)")
        #expect(objects.allSatisfy { $0["level"] is String && $0["message"] is String && $0["timestamp"] is String })

        let refused = try bus.start("bad-level", ["worker", "--examples", "--fault-injection", "--coordinator", bus.workers, "--log-level", "loud"])
        #expect(refused.waitForExit() == 2, "a usage error: exit status 2: \(refused.stderr)")
    }
}
