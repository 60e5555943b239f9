import ActionBusTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The zguide's own Majordomo 0.1 (RFC 7) client and worker (`mdcliapi.py`, `mdwrkapi.py`,
/// unmodified, in Support/zguide) against a coordinator process.
@Suite("Majordomo 0.1 (zguide)", .serialized, .timeLimit(.minutes(2)))
struct MajordomoV01Tests {
    static let zguide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Support/zguide")
    static var pythonAvailable: Bool {
        MajordomoInteropTests.python != nil || ProcessInfo.processInfo.environment["ACTIONBUS_REQUIRE_PYTHON"] != nil
    }

    /// Starts one of the zguide scripts (`-B`: no bytecode written beside them).
    func startScript(_ bus: BusFixture, _ name: String, _ script: String, _ arguments: [String]) throws -> BusProcess {
        let python = try #require(MajordomoInteropTests.python, "ACTIONBUS_REQUIRE_PYTHON is set but no Python with pyzmq was found")
        return try bus.startProgram(name, python.path, ["-B", Self.zguide.appendingPathComponent(script).path] + arguments)
    }

    /// Waits until `actionbus workers` lists an MDP/0.1 worker, and returns its name.
    func awaitMajordomoWorker(_ bus: BusFixture, _ coordinator: BusProcess) throws -> String {
        var name: String?
        try expect(waitUntil(interval: .milliseconds(100)) {
            name = (try? bus.listedWorkers().first { $0.protocolName == "MDP/0.1" })?.name
            return name != nil
        }, "no MDP/0.1 worker registered: \(coordinator.stderr)")
        return name ?? ""
    }

    @Test(.enabled(if: pythonAvailable, "needs pyzmq: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func theZguideClientIsServedByASwiftWorker() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        let client = try startScript(bus, "mdp01-client", "mdp01_client.py", [bus.clients, "--service", "Echo.say", "--body", #"{"text":"v01"}"#])
        #expect(client.waitForExit(timeout: .seconds(30)) == 0, "\(client.stdout)\(client.stderr)")
        // The body of mdcliapi's reply, which checked "MDPC01" and the service itself.
        let reply = try JSONSerialization.jsonObject(with: Data(client.stdout.utf8)) as? [String: Any]
        #expect(reply?["outcome"] as? String == "success", "\(client.stdout)")
        #expect(reply?["action"] as? String == "Echo.say")
        #expect((reply?["output"] as? [String: Any])?["text"] as? String == "v01")
        #expect(reply?["worker"] as? String == "w1")
        #expect((reply?["request"] as? String)?.hasPrefix("mdp:") == true)
    }

    @Test(.enabled(if: pythonAvailable, "needs pyzmq: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func aSwiftClientIsServedByTheZguideWorker() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        let worker = try startScript(bus, "mdp01-worker", "mdp01_worker.py", [bus.workers, "0", "--service", "Legacy.echo"])
        let name = try awaitMajordomoWorker(bus, coordinator)
        for text in ["first", "second"] {
            let perform = try bus.perform("Legacy.echo", ["--input", #"{"text":"\#(text)"}"#, "--json"])
            #expect(perform.process.terminationStatus == 0, "\(perform.stdout)\(perform.stderr)")
            let outcome = try JSONSerialization.jsonObject(with: Data(perform.stdout.utf8)) as? [String: Any]
            #expect(outcome?["outcome"] as? String == "success", "\(perform.stdout)")
            #expect((outcome?["output"] as? [String: Any])?["text"] as? String == text)
            #expect(outcome?["worker"] as? String == name)
        }
        // The worker saw the inputs as the REQUEST bodies, in order.
        #expect(worker.stdoutLines == [#"{"text":"first"}"#, #"{"text":"second"}"#])
        // It heartbeats as RFC 7 says (every 2.5 s) and the coordinator keeps it past its own
        // 3 s expiry: it still serves after 4 s of idling.
        Thread.sleep(forTimeInterval: 4)
        let later = try bus.perform("Legacy.echo", ["--input", #"{"text":"later"}"#, "--json"])
        #expect(later.stdout.contains(#""worker":"\#(name)""#), "\(later.stdout)\(later.stderr)")
        #expect(try bus.statistics()["workersExpired"] == 0, "\(coordinator.stderr)")
    }

    @Test(.enabled(if: pythonAvailable, "needs pyzmq: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func aZguideWorkerThatDiesHoldingARequestHasItRequeued() throws {
        let bus = try BusFixture()
        // A worker busy with a request sends no heartbeats (RFC 7): its silence counts after
        // --majordomo-busy-seconds (60 by default, 2 here).
        let coordinator = try bus.startCoordinator(["--no-journal", "--majordomo-busy-seconds", "2"])
        let holder = try startScript(bus, "mdp01-holder", "mdp01_worker.py", [bus.workers, "--service", "Legacy.echo", "--hold"])
        _ = try awaitMajordomoWorker(bus, coordinator)
        let perform = try bus.start("perform", ["perform", "Legacy.echo", "--input", #"{"text":"survivor"}"#, "--json",
                                                "--timeout", "60", "--coordinator", bus.clients])
        try expect(waitUntil(timeout: .seconds(20)) { holder.stdout.contains("survivor") }, "the holder never got the request")
        holder.signal(SIGKILL)
        holder.waitForExit()
        let rescuer = try startScript(bus, "mdp01-rescuer", "mdp01_worker.py", [bus.workers, "0", "--service", "Legacy.echo"])
        // Silent and busy past 2 s, it is lost; the request goes to the other worker.
        #expect(perform.waitForExit(timeout: .seconds(40)) == 0, "\(perform.stdout)\(perform.stderr)")
        #expect(perform.stdout.contains(#""outcome":"success""#), "\(perform.stdout)")
        #expect(rescuer.stdoutLines == [#"{"text":"survivor"}"#])
        let stats = try bus.statistics()
        #expect(stats["redelivered"] == 1, "\(stats)")
        #expect(stats["workersExpired"] == 1, "\(stats)")
    }

    @Test(.enabled(if: pythonAvailable, "needs pyzmq: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func majordomoMessagesNotSpokenHereAreAnsweredAndCounted() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        // Raw frames from a DEALER on each socket; every answer printed as a Python list.
        let script = #"""
            import sys, zmq
            context = zmq.Context()
            def ask(endpoint, frames):
                dealer = context.socket(zmq.DEALER)
                dealer.setsockopt(zmq.LINGER, 0)
                dealer.setsockopt(zmq.RCVTIMEO, 10000)
                dealer.connect(endpoint)
                dealer.send_multipart(frames)
                print(dealer.recv_multipart())
                dealer.close()
            clients, workers = sys.argv[1], sys.argv[2]
            ask(clients, [b"", b"MDPC03", b"Echo.say", b"{}"])              # a version not spoken
            ask(clients, [b"", b"MDPC01", b"Echo\x01say", b"{}"])           # a service that is no name
            ask(clients, [b"MDPC02", b"\x09", b"Echo.say", b"{}"])          # not a REQUEST
            ask(clients, [b"", b"MDPC01", b"Echo.say", b"{}", b"{}"])       # two body frames
            ask(workers, [b"", b"MDPW01", b"\x02", b"c", b"", b"{}"])       # a REQUEST from a worker
            ask(clients, [b"", b"MDPC01", b"Echo.say", b'{"text":"ok"}'])   # and still serving
            context.term()
            """#
        let python = try #require(MajordomoInteropTests.python)
        let process = try bus.startProgram("raw", python.path, ["-B", "-c", script, bus.clients, bus.workers])
        #expect(process.waitForExit(timeout: .seconds(60)) == 0, "\(process.stdout)\(process.stderr)")
        let answers = process.stdoutLines
        try #require(answers.count == 6, "\(process.stdout)\(process.stderr)")
        #expect(answers[0].hasPrefix("[b'', b'MDPC03', b'Echo.say', b'{\"outcome\":\"failure\",\"error\":{\"code\":\"unsupportedVersion\""), "\(answers[0])")
        #expect(answers[1].hasPrefix(#"[b'', b'MDPC01', b'Echo\x01say', b'{"outcome":"failure","error":{"code":"malformedRequest""#), "\(answers[1])")
        #expect(answers[2].hasPrefix(#"[b'MDPC02', b'\x03', b'Echo.say', b'{"outcome":"failure","error":{"code":"malformedRequest""#), "\(answers[2])")
        #expect(answers[3].contains("malformedRequest") && answers[3].contains("one frame"), "\(answers[3])")
        #expect(answers[4] == #"[b'', b'MDPW01', b'\x05']"#, "RFC 7: DISCONNECT answers what a broker cannot take")
        #expect(answers[5].contains(#""text":"ok""#), "\(answers[5])")
        let stats = try bus.statistics()
        #expect(stats["malformedClientMessages"] == 4, "\(stats)")
        #expect(stats["malformedWorkerMessages"] == 1, "\(stats)")
    }
}
