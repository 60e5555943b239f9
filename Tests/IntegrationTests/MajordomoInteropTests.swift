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
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script, bus.clients]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
        let reply = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(reply?["outcome"] as? String == "success")
        #expect(reply?["action"] as? String == "Echo.say")
        #expect((reply?["output"] as? [String: Any])?["text"] as? String == "hi from majortomo")
        #expect(reply?["worker"] as? String == "w1")
    }
}
