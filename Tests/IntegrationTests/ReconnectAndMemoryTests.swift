import ActionBusTestSupport
import ActionClient
import Foundation
import Testing

/// A client whose TCP connection is re-established, and what a worker keeps of finished work.
@Suite("Reconnection and worker memory", .serialized, .timeLimit(.minutes(2)))
struct ReconnectAndMemoryTests {
    /// A TCP relay in Python whose first connection forwards for `forward_for` seconds (the
    /// ZMTP handshake), then swallows what the client sends for `swallow_for` seconds and drops
    /// the connection: requests written to it are lost, as on a connection that breaks under
    /// load. Later connections are forwarded as they are.
    static let relayScript = """
        import socket, sys, threading, time
        listen_port, target_port = int(sys.argv[1]), int(sys.argv[2])
        forward_for, swallow_for = float(sys.argv[3]), float(sys.argv[4])
        server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", listen_port)); server.listen(16)
        def pump(a, b, until):
            try:
                while True:
                    data = a.recv(65536)
                    if not data: break
                    if until is None or time.time() < until: b.sendall(data)
            except OSError: pass
            for s in (a, b):
                try: s.close()
                except OSError: pass
        def announce(at):
            time.sleep(max(0, at - time.time()))
            print("swallowing", flush=True)
        def cut(sockets, at):
            time.sleep(max(0, at - time.time()))
            for s in sockets:
                try: s.shutdown(socket.SHUT_RDWR)
                except OSError: pass
            print("dropped", flush=True)
        first = True
        while True:
            client, _ = server.accept()
            upstream = socket.create_connection(("127.0.0.1", target_port))
            swallow_from = time.time() + forward_for if first else None
            threading.Thread(target=pump, args=(client, upstream, swallow_from), daemon=True).start()
            threading.Thread(target=pump, args=(upstream, client, None), daemon=True).start()
            if first:
                first = False
                threading.Thread(target=announce, args=(swallow_from,), daemon=True).start()
                threading.Thread(target=cut, args=([client, upstream], time.time() + forward_for + swallow_for), daemon=True).start()
        """

    @Test func aClientWhoseConnectionIsReestablishedGetsItsOutcomesAndNothingRunsTwice() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        try bus.startWorker("w1", coordinator: coordinator)
        let relayPort = try freeLoopbackPort()
        let python = ProcessInfo.processInfo.environment["ACTIONBUS_PYTHON"] ?? "/usr/bin/python3"
        // Forwarded for 0.7 s, then cut.
        let relay = try bus.startProgram("relay", python, ["-c", Self.relayScript, "\(relayPort)", "\(bus.clientsPort)", "0.7", "0"])

        // The requests run 1.5 s; the relay cuts the client's connection 0.7 s after it opened.
        let perform = try bus.start("perform", [
            "perform", "Clock.sleep", "--input", #"{"ms":1500}"#, "--count", "20", "--concurrency", "20", "--timeout", "30",
            "--json", "--coordinator", "tcp://127.0.0.1:\(relayPort)",
        ])
        try expect(perform.waitForExit(timeout: .seconds(40)) != nil, "the perform did not finish")
        #expect(relay.stdout.contains("dropped"), "the relay never cut the connection: \(relay.stderr)")
        #expect(perform.process.terminationStatus == 0, "\(perform.stderr)")
        #expect(Set(try OutcomeLine.parse(perform.stdoutLines).map(\.request)).count == 20)
        // The outcomes found the client on its new connection (same routing id). The client
        // sent its outstanding requests again when the connection dropped (what was written to
        // it may be lost): the coordinator answered those copies from its table, and nothing
        // ran twice.
        let stats = try bus.statistics()
        #expect(stats["accepted"] == 20, "\(stats)")
        #expect((stats["duplicates"] ?? 0) >= 20, "the resends were answered from the table: \(stats)")
    }


    @Test func requestsLostWithADroppedConnectionAreSentAgainAtOnce() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        try bus.startWorker("w1", coordinator: coordinator)
        let relayPort = try freeLoopbackPort()
        let python = ProcessInfo.processInfo.environment["ACTIONBUS_PYTHON"] ?? "/usr/bin/python3"
        let relay = try bus.startProgram("relay", python, [
            "-c", Self.relayScript, "\(relayPort)", "\(bus.clientsPort)", "0.3", "1.5",
        ])
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = "tcp://127.0.0.1:\(relayPort)"
        let client = try ActionClient(configuration: configuration)
        // Connected and past the handshake; the requests then go into the swallowed stretch.
        guard waitUntil(timeout: .seconds(10), { relay.stdout.contains("swallowing") }) else {
            await client.close()
            throw FixtureError(description: "the relay never took the client's connection: \(relay.stderr)")
        }
        let started = ContinuousClock.now
        do {
            try await performTwenty(on: client)
        } catch {
            await client.close()
            throw error
        }
        await client.close()
        #expect(relay.stdout.contains("dropped"))
        // Sent again when the connection dropped, not at the last chance before the 2-minute
        // deadline (the time bounds a behaviour: without the resend it would be ~2 minutes).
        #expect(ContinuousClock.now - started < .seconds(60))
        let stats = try bus.statistics()
        #expect(stats["accepted"] == 20, "each ran once: \(stats)")
    }

    /// Twenty Echo.say performs at once, each with two minutes to live; every one must succeed.
    private func performTwenty(on client: ActionClient) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...20 {
                group.addTask {
                    let outcome = try await client.perform(
                        action: "Echo.say", input: Array(#"{"text":"\#(n)"}"#.utf8), timeout: .seconds(120)
                    )
                    #expect(outcome.isSuccess)
                }
            }
            try await group.waitForAll()
        }
    }

    /// A worker frees what a request holds (its input, the action's completion) when the request
    /// completes, not at its deadline.
    @Test func aWorkerKeepsNothingOfCompletedRequestsUntilTheirDeadlines() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        let worker = try bus.startWorker("w1", coordinator: coordinator)
        func residentKilobytes() throws -> Int {
            #if os(Linux)
            let status = try String(contentsOfFile: "/proc/\(worker.pid)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
            return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
            #else
            // No /proc on Darwin: the resident size from libproc.
            var info = proc_taskinfo()
            let size = Int32(MemoryLayout<proc_taskinfo>.size)
            try #require(proc_pidinfo(worker.pid, PROC_PIDTASKINFO, 0, &info, size) == size)
            return Int(info.pti_resident_size / 1024)
            #endif
        }
        let text = String(repeating: "m", count: 100_000)  // one argument may not pass 128 KiB
        let warm = try bus.perform("Echo.say", ["--input", #"{"text":"\#(text)"}"#, "--count", "50", "--concurrency", "10"])
        #expect(warm.process.terminationStatus == 0)
        let before = try residentKilobytes()
        // 1,500 requests of 100 KB each with an hour to live: 150 MB if the worker kept them.
        let load = try bus.perform("Echo.say", [
            "--input", #"{"text":"\#(text)"}"#, "--count", "1500", "--concurrency", "20", "--timeout", "3600",
        ], timeout: .seconds(90))
        #expect(load.process.terminationStatus == 0, "\(load.stderr)")
        let grown = try residentKilobytes() - before
        #expect(grown < 60_000, "the worker grew by \(grown) KB")
    }
}
