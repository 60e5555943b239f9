import ActionBusTestSupport
import Foundation
import Testing

/// Flint's model across processes: nested performs, user-initiated sessions, began events,
/// session ends and fleet-wide feature switches, as users reach them with `actionbus`.
@Suite("Flint over the bus", .serialized, .timeLimit(.minutes(3)))
struct FlintOverTheBusTests {
    @Test func nestedPerformsBeganEventsAndASessionsEndCrossTheBus() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        // The nested Echo.say and the requested Echo.sayTwice, and began events too: read until
        // all three lines are in (began events come on a socket of their own).
        let subscriber = try bus.startSubscriber("subscriber", ["--session", "flint-1", "--began", "--json"])

        let perform = try bus.perform("Echo.sayTwice", ["--input", #"{"text":"hi"}"#, "--session", "flint-1", "--not-user-initiated", "--json"])
        #expect(perform.process.terminationStatus == 0, "\(perform.stderr)")
        let outcome = try #require(try OutcomeLine.parse(perform.stdoutLines).first)
        #expect(outcome.output?["text"] == .string("hi hi"))

        #expect(waitUntil { subscriber.stdoutLines.count >= 3 }, "\(subscriber.stdout)")
        subscriber.signal(SIGTERM)
        _ = subscriber.waitForExit()
        let lines = subscriber.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let began = lines.filter { $0["began"] as? Bool == true }
        let outcomes = lines.filter { $0["outcome"] != nil }
        #expect(began.map { $0["request"] as? String } == [outcome.request], "the request's start, before anything of it: \(lines)")
        #expect(began.first?["worker"] as? String == "w1")
        #expect(outcomes.map { $0["action"] as? String } == ["Echo.say", "Echo.sayTwice"])
        #expect(outcomes.map { $0["nested"] as? Bool } == [true, nil], "the nested perform says so")
        #expect(outcomes.allSatisfy { $0["userInitiated"] as? Bool == false })

        // The coordinator's stacks hold the nested perform too, as the worker's session does.
        let stacks = try bus.start("stacks", ["stacks", "--json", "--session", "flint-1", "--coordinator", bus.clients])
        #expect(stacks.waitForExit() == 0, "\(stacks.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(stacks.stdout.utf8)) as? [String: Any]
        let open = report?["stacks"] as? [[String: Any]] ?? []
        #expect(open.count == 1)
        #expect(open.first?["userInitiated"] as? Bool == false)
        let entries = (open.first?["entries"] as? [[String: Any]] ?? []).compactMap { $0["actionName"] as? String }
        #expect(entries == ["Echo.say", "Echo.sayTwice"])

        // Ending the session closes it everywhere and says what closed.
        let end = try bus.start("end", ["stacks", "--end", "flint-1", "--json", "--coordinator", bus.clients])
        #expect(end.waitForExit() == 0, "\(end.stderr)")
        let closed = try JSONSerialization.jsonObject(with: Data(end.stdout.utf8)) as? [String: Any]
        #expect((closed?["stacks"] as? [[String: Any]])?.first?["featureName"] as? String == "Echo")
        let after = try bus.start("stacks-after", ["stacks", "--json", "--session", "flint-1", "--coordinator", bus.clients])
        #expect(after.waitForExit() == 0)
        let afterReport = try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any]
        #expect((afterReport?["stacks"] as? [Any])?.isEmpty == true)
    }

    @Test func featureSwitchesReachEveryWorkerAndOutliveACoordinatorRestart() throws {
        let bus = try BusFixture()
        var coordinator = try bus.startCoordinator(["--heartbeat-ms", "300"])
        try bus.startWorker("w1", coordinator: coordinator, ["--heartbeat-ms", "300"])

        func perform(_ action: String) throws -> OutcomeLine {
            let process = try bus.perform(action, ["--input", #"{"text":"hi"}"#, "--json"])
            return try #require(try OutcomeLine.parse(process.stdoutLines).first, "\(process.stderr)")
        }
        func features(_ arguments: [String]) throws -> [String: Any] {
            let process = try bus.start("features-\(UUID().uuidString.prefix(6))", ["features", "--json", "--coordinator", bus.clients] + arguments)
            try expect(process.waitForExit() == 0, "features \(arguments) failed: \(process.stderr)")
            return try JSONSerialization.jsonObject(with: Data(process.stdout.utf8)) as? [String: Any] ?? [:]
        }

        // Labs is conditional and off by default.
        #expect(try perform("Labs.preview").error?.code == "featureUnavailable")
        let switched = try features(["--enable", "Labs", "--disable", "Echo"])
        #expect(switched["switches"] as? [String: String] == ["Labs": "on", "Echo": "off"])
        // The catalog the workers serve, described: each feature and action, with schemas.
        let labs = (switched["features"] as? [[String: Any]])?.first { $0["name"] as? String == "Labs" }
        #expect(labs?["description"] as? String == "Experiments, off until switched on")
        #expect(labs?["conditional"] as? Bool == true)
        let preview = (labs?["details"] as? [[String: Any]])?.first
        let input = preview?["input"] as? [String: Any]
        #expect((input?["properties"] as? [String: Any])?["text"] as? [String: String] == ["type": "string"], "\(preview ?? [:])")
        #expect(try perform("Labs.preview").output?["text"] == .string("HI"))
        #expect(try perform("Echo.say").error?.code == "featureUnavailable")

        // A worker that joins later is switched as it registers.
        let late = try bus.startWorker("w2", coordinator: coordinator, ["--heartbeat-ms", "300"])
        let several = try bus.perform("Echo.say", ["--input", #"{"text":"hi"}"#, "--count", "20", "--concurrency", "20", "--json"])
        let refused = try OutcomeLine.parse(several.stdoutLines)
        #expect(refused.count == 20 && refused.allSatisfy { $0.error?.code == "featureUnavailable" })
        #expect(Set(refused.map(\.worker)) == ["w1", "w2"], "both workers refuse it")
        late.signal(SIGTERM)
        _ = late.waitForExit(timeout: .seconds(10))

        // The switches are journaled: a restarted coordinator gives them to the workers again.
        coordinator.signal(SIGTERM)
        #expect(coordinator.waitForExit(timeout: .seconds(10)) == 0)
        coordinator = try bus.startCoordinator(["--heartbeat-ms", "300"], name: "coordinator-2")
        try bus.awaitWorker("w1", coordinator: coordinator)
        #expect(try features([])["switches"] as? [String: String] == ["Labs": "on", "Echo": "off"])
        #expect(try perform("Echo.say").error?.code == "featureUnavailable")
        #expect(try features(["--clear", "Echo", "--clear", "Labs"])["switches"] as? [String: String] == [:])
        #expect(try perform("Echo.say").outcome == "success")
        #expect(try perform("Labs.preview").error?.code == "featureUnavailable", "back to its default: off")
    }
}
