import ActionBusTestSupport
import Foundation
import Testing

/// The Python `majortomo` 0.2.0 client, unmodified, against a coordinator process.
@Suite("Majordomo interop", .serialized, .timeLimit(.minutes(2)))
struct MajordomoInteropTests {
    /// The Python with majortomo installed: `$ACTIONBUS_PYTHON`, else the venv scripts/test.sh makes.
    static var python: URL? {
        if let path = ProcessInfo.processInfo.environment["ACTIONBUS_PYTHON"] { return URL(fileURLWithPath: path) }
        let venv = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".venv-test/bin/python")
        return FileManager.default.isExecutableFile(atPath: venv.path) ? venv : nil
    }

    @Test(.enabled(if: python != nil || ProcessInfo.processInfo.environment["ACTIONBUS_REQUIRE_PYTHON"] != nil,
                   "needs majortomo: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func majortomoClientPerformsEchoSay() throws {
        let python = try #require(Self.python, "ACTIONBUS_REQUIRE_PYTHON is set but no Python with majortomo was found")
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        let script = """
            import json, sys
            from majortomo import Client
            client = Client(sys.argv[1])
            client.connect()
            client.send(b"Echo.say", b'{"text":"hi from majortomo"}')
            reply = client.recv_all_as_list(timeout=10.0)
            client.close()
            print(json.dumps(json.loads(reply[0])))
            """
        let (status, text) = try SpawnedProcess.run(python.path, ["-c", script, bus.clients])
        #expect(status == 0, "\(text)")
        let reply = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(reply?["outcome"] as? String == "success")
        #expect(reply?["action"] as? String == "Echo.say")
        #expect((reply?["output"] as? [String: Any])?["text"] as? String == "hi from majortomo")
        #expect(reply?["worker"] as? String == "w1")
    }

    /// The example worker in Examples/python: majortomo's MDP/0.2 `Worker`, unmodified.
    static let exampleWorker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/python/majortomo_worker.py").path

    @Test(.enabled(if: python != nil || ProcessInfo.processInfo.environment["ACTIONBUS_REQUIRE_PYTHON"] != nil,
                   "needs majortomo: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func aMajortomoWorkerServesAnActionAndItsDeathRequeuesItsRequest() throws {
        let python = try #require(Self.python, "ACTIONBUS_REQUIRE_PYTHON is set but no Python with majortomo was found")
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--majordomo-busy-seconds", "2"])
        let first = try bus.startProgram("py-1", python.path, ["-u", Self.exampleWorker, bus.workers, "Legacy.upper"])
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.listedWorkers().contains { $0.name.hasPrefix("mdp02-") }) == true },
                   "the majortomo worker did not register: \(first.stderr) \(coordinator.stderr)")

        // Served like any action: by `actionbus perform`, into the stream and the stacks.
        let subscriber = try bus.startSubscriber("subscriber", ["--action", "Legacy.upper", "--json", "--limit", "1"])
        let perform = try bus.perform("Legacy.upper", ["--input", #"{"text":"hi"}"#, "--session", "py-1", "--json"])
        #expect(perform.process.terminationStatus == 0, "\(perform.stderr)")
        let outcome = try #require(try OutcomeLine.parse(perform.stdoutLines).first)
        #expect(outcome.output?["text"]?.string == "HI")
        #expect(outcome.worker.hasPrefix("mdp02-"))
        #expect(subscriber.waitForExit(timeout: .seconds(10)) == 0)
        #expect(subscriber.stdout.contains(#""action":"Legacy.upper""#), "\(subscriber.stdout)")
        let stacks = try bus.start("stacks", ["stacks", "--session", "py-1", "--json", "--coordinator", bus.clients])
        #expect(stacks.waitForExit() == 0)
        #expect(stacks.stdout.contains("Legacy.upper"), "\(stacks.stdout)")
        let workers = try bus.start("workers", ["workers", "--json", "--coordinator", bus.clients])
        #expect(workers.waitForExit() == 0)
        #expect(workers.stdout.contains(#""protocol":"MDP/0.2""#), "\(workers.stdout)")

        // It dies holding a request: after its silence, the request runs on another worker, once.
        let slow = try bus.start("slow", ["perform", "Legacy.upper", "--input", #"{"text":"again","sleep":6}"#, "--json",
                                          "--timeout", "60", "--coordinator", bus.clients])
        try expect(waitUntil {
            let queues = try? bus.start("queues-\(UUID().uuidString.prefix(4))", ["queues", "--json", "--coordinator", bus.clients])
            _ = queues?.waitForExit()
            return queues?.stdout.contains(#""running":1"#) == true
        }, "the slow request never started")
        first.signal(SIGKILL)
        _ = first.waitForExit(timeout: .seconds(5))
        try bus.startProgram("py-2", python.path, ["-u", Self.exampleWorker, bus.workers, "Legacy.upper"])
        // The second worker gets the request again (with its sleep): its outcome is the proof.
        #expect(slow.waitForExit(timeout: .seconds(90)) == 0, "\(slow.stderr)")
        let again = try #require(try OutcomeLine.parse(slow.stdoutLines).first)
        #expect(again.output?["text"]?.string == "AGAIN")
        let stats = try bus.statistics()
        #expect(stats["workersExpired"] == 1, "the dead worker was declared lost: \(stats)")
        #expect(stats["redelivered"] == 1, "its request ran again: \(stats)")
    }
}
