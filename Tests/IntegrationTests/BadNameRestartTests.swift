import ActionBusTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A name the wire rules reject never reaches the journal, and a journal that holds one anyway
/// (written before the rule covered every name) still lets the coordinator restart.
@Suite("Bad names and restarts", .serialized, .timeLimit(.minutes(2)))
struct BadNameRestartTests {
    static let pythonAvailable = MajordomoInteropTests.python != nil
        || ProcessInfo.processInfo.environment["ACTIONBUS_REQUIRE_PYTHON"] != nil

    /// Runs `script` with the test Python and `arguments`, killing it by PID after `timeout`.
    func runPython(_ script: String, _ arguments: [String], timeout: Duration = .seconds(30)) throws -> (status: Int32, output: String) {
        let python = try #require(MajordomoInteropTests.python, "ACTIONBUS_REQUIRE_PYTHON is set but no Python with pyzmq was found")
        return try SpawnedProcess.run(python.path, ["-c", script] + arguments, timeout: timeout)
    }

    @Test(.enabled(if: pythonAvailable, "needs pyzmq: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func aMajordomoServiceWithAControlCharacterNeverBlocksARestart() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let first = try bus.startCoordinator(fast)
        try bus.startWorker("w1", coordinator: first, fast)
        // majortomo's framing, a control character in the service: refused with an answer; then
        // a valid request on the same connection, served (one connection keeps its order).
        let script = #"""
            import sys, zmq
            context = zmq.Context()
            dealer = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 1000)
            dealer.setsockopt(zmq.RCVTIMEO, 20000)
            dealer.connect(sys.argv[1])
            dealer.send_multipart([b"", b"MDPC02", b"\x02", b"Echo.say\x01", b"{}"])
            dealer.send_multipart([b"", b"MDPC02", b"\x02", b"Echo.say", b'{"text":"after"}'])
            print(dealer.recv_multipart()[-1].decode())
            print(dealer.recv_multipart()[-1].decode())
            dealer.close()
            context.term()
            """#
        let raw = try runPython(script, [bus.clients])
        #expect(raw.status == 0, "\(raw.output)")
        let answers = raw.output.split(separator: "\n")
        #expect(answers.first?.contains(#""code":"malformedRequest""#) == true, "\(raw.output)")
        #expect(answers.last?.contains(#""text":"after""#) == true, "\(raw.output)")
        let once = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "k1", "--json"])
        #expect(try OutcomeLine.parse(once.stdoutLines).first?.output?["n"]?.number == 1)

        let stats = try bus.start("stats", ["stats", "--json", "--coordinator", bus.clients])
        #expect(stats.waitForExit() == 0, "\(stats.stderr)")
        let counters = try JSONDecoder().decode([String: Int].self, from: Data(stats.stdout.utf8))
        #expect(counters["malformedClientMessages"] == 1, "the bad request is counted as malformed, not accepted")

        first.signal(SIGTERM)
        #expect(first.waitForExit(timeout: .seconds(10)) == 0, "\(first.stderr)")

        let second = try bus.startCoordinator(fast, name: "coordinator-2")
        // It started (a damaged journal stops it); the journal held no record it had to skip,
        // and both finished requests.
        #expect(second.logRecords(withField: "journal.skippedRecords").isEmpty, "the bad request was never journaled: \(second.stderr)")
        #expect(second.logRecords(withField: "journal.finished").first?.integer("journal.finished") == 2, "\(second.stderr)")
        let retry = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "k1", "--json"])
        #expect(try OutcomeLine.parse(retry.stdoutLines).first?.output?["n"]?.number == 1, "answered from the journal")
        let fresh = try bus.perform("Echo.say", ["--input", #"{"text":"served"}"#, "--json"])
        #expect(fresh.process.terminationStatus == 0, "\(fresh.stderr)")
        #expect(try OutcomeLine.parse(fresh.stdoutLines).first?.output?["text"]?.string == "served")
    }

    @Test(.enabled(if: pythonAvailable, "needs Python: run scripts/test.sh, or set ACTIONBUS_PYTHON"))
    func aJournaledRecordWithAnInvalidNameIsSkippedAndReportedAtStart() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let first = try bus.startCoordinator(fast)
        try bus.startWorker("w1", coordinator: first, fast)
        let once = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "k1", "--json"])
        #expect(try OutcomeLine.parse(once.stdoutLines).first?.output?["n"]?.number == 1)
        first.signal(SIGTERM)
        #expect(first.waitForExit(timeout: .seconds(10)) == 0, "\(first.stderr)")

        // An intact ACCEPTED record (length, CRC-32, body) as a coordinator that let a control
        // character through wrote it, then a valid record, so it is not a torn end to cut off.
        let script = #"""
            import struct, sys, zlib
            def record(kind, fields):
                body = kind + struct.pack(">H", len(fields)) + b"".join(struct.pack(">I", len(f)) + f for f in fields)
                return struct.pack(">II", len(body), zlib.crc32(body)) + body
            accepted = [b"old:1", b"Echo.say\x01", b"", struct.pack(">I", 0), b"application/json", b"{}",
                        struct.pack(">Q", 4102444800000)]
            with open(sys.argv[1], "ab") as journal:
                journal.write(record(b"A", accepted) + record(b"D", [b"old:1"]))
            """#
        let journalPath = (bus.dataDirectory as NSString).appendingPathComponent("journal.log")
        let append = try runPython(script, [journalPath])
        #expect(append.status == 0, "\(append.output)")

        let second = try bus.startCoordinator(fast, name: "coordinator-2")
        #expect(second.logRecords(withField: "journal.skippedRecords").first?.integer("journal.skippedRecords") == 1, "\(second.stderr)")
        #expect(second.logRecords(withField: "journal.finished").first?.integer("journal.finished") == 1, "\(second.stderr)")
        let retry = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "k1", "--json"])
        #expect(try OutcomeLine.parse(retry.stdoutLines).first?.output?["n"]?.number == 1, "answered from the journal")
    }
}
