import ActionBusTestSupport
import Foundation
import Testing

/// CURVE on all three coordinator sockets: allowed keys get in, unknown keys and plaintext
/// peers get nothing.
@Suite("CURVE security", .serialized, .timeLimit(.minutes(2)))
struct CurveSecurityTests {
    @Test func onlyAllowedKeysPerformRegisterAndSubscribe() throws {
        let bus = try BusFixture()
        let keys = bus.directory.appendingPathComponent("keys").path
        for folder in ["", "/clients", "/workers", "/other"] {
            try FileManager.default.createDirectory(atPath: keys + folder, withIntermediateDirectories: true)
        }
        for (name, base) in [("coordinator", "\(keys)/coordinator"), ("client", "\(keys)/clients/client"),
                             ("worker", "\(keys)/workers/worker"), ("intruder", "\(keys)/other/intruder")] {
            let keygen = try bus.start("keygen-\(name)", ["keygen", "--out", base])
            #expect(keygen.waitForExit() == 0, "\(keygen.stderr)")
        }
        let secretMode = try FileManager.default.attributesOfItem(atPath: "\(keys)/clients/client.key")[.posixPermissions] as? Int
        #expect(secretMode == 0o600)

        let coordinator = try bus.startCoordinator([
            "--curve-secret-key", "\(keys)/coordinator.key", "--allow-clients", "\(keys)/clients", "--allow-workers", "\(keys)/workers",
        ])
        // Its listening record says how its sockets are secured.
        #expect(coordinator.logRecords(withField: "endpoint.clients").first?.fields["security"] == "CURVE", "\(coordinator.stderr)")
        let server = ["--coordinator-key", "\(keys)/coordinator.pub"]
        let asClient = ["--curve-secret-key", "\(keys)/clients/client.key"] + server
        let asIntruder = ["--curve-secret-key", "\(keys)/other/intruder.key"] + server
        // The fixture's own queries (is a worker registered?) come as the allowed client.
        bus.queryOptions = asClient

        let worker = try bus.startWorker("w1", coordinator: coordinator, ["--curve-secret-key", "\(keys)/workers/worker.key"] + server)
        let allowed = try bus.perform("Echo.say", ["--input", #"{"text":"secret"}"#, "--json"] + asClient)
        #expect(allowed.process.terminationStatus == 0, "\(allowed.stderr)")
        #expect(try OutcomeLine.parse(allowed.stdoutLines).first?.output?["text"]?.string == "secret")

        // An unknown key and a plaintext client get no outcome at all.
        let unknown = try bus.perform("Echo.say", ["--input", #"{"text":"x"}"#, "--timeout", "0.5"] + asIntruder)
        #expect(unknown.process.terminationStatus == 2)
        #expect(unknown.stdout.isEmpty)
        let plaintext = try bus.perform("Echo.say", ["--input", #"{"text":"x"}"#, "--timeout", "0.5"])
        #expect(plaintext.process.terminationStatus == 2)
        #expect(plaintext.stdout.isEmpty)

        // A subscriber with an unknown key is never confirmed, so it streams nothing.
        let spy = try bus.start("spy", ["subscribe", "--timeout", "1", "--outcomes", bus.outcomes] + asIntruder)
        #expect(spy.waitForExit() == 2)
        #expect(spy.stdout.isEmpty)

        // A worker with an unknown key never registers, so it is never sent work.
        let rogue = try bus.start("rogue", ["worker", "--examples", "--fault-injection", "--coordinator", bus.workers, "--name", "rogue"] + asIntruder)
        worker.signal(SIGTERM)
        #expect(worker.waitForExit(timeout: .seconds(10)) != nil)
        let orphan = try bus.perform("Echo.say", ["--input", #"{"text":"x"}"#, "--timeout", "1", "--json"] + asClient)
        #expect(orphan.process.terminationStatus == 1)
        #expect(try OutcomeLine.parse(orphan.stdoutLines).first?.error?.code == "noWorker", "\(orphan.stdout) \(orphan.stderr)")
        #expect(rogue.process.isRunning)
        #expect(try bus.listedWorkers().isEmpty, "the rogue never registered")
    }

    @Test func aRequestBelongsToTheKeyThatSentIt() throws {
        let bus = try BusFixture()
        let keys = bus.directory.appendingPathComponent("keys").path
        try FileManager.default.createDirectory(atPath: keys + "/clients", withIntermediateDirectories: true)
        for base in ["\(keys)/coordinator", "\(keys)/clients/alice", "\(keys)/clients/mallory"] {
            #expect(try bus.start("keygen", ["keygen", "--out", base]).waitForExit() == 0)
        }
        let coordinator = try bus.startCoordinator([
            "--no-journal", "--curve-secret-key", "\(keys)/coordinator.key", "--allow-clients", "\(keys)/clients",
            "--allow-workers", "\(keys)/clients",
        ])
        let server = ["--coordinator-key", "\(keys)/coordinator.pub"]
        let alice = ["--curve-secret-key", "\(keys)/clients/alice.key"] + server
        bus.queryOptions = alice
        try bus.startWorker("w1", coordinator: coordinator, alice)
        let mallory = ["--curve-secret-key", "\(keys)/clients/mallory.key"] + server
        let first = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "order-9", "--json"] + alice)
        #expect(try OutcomeLine.parse(first.stdoutLines).first?.output?["n"]?.number == 1)
        // Another allowed key learns the id (from the stream, say): it gets no outcome of Alice's.
        let stolen = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "order-9", "--json"] + mallory)
        #expect(try OutcomeLine.parse(stolen.stdoutLines).first?.error?.code == "notOwner", "\(stolen.stdout)")
        let again = try bus.perform("Sequence.next", ["--session", "s", "--idempotency-key", "order-9", "--json"] + alice)
        #expect(try OutcomeLine.parse(again.stdoutLines).first?.output?["n"]?.number == 1, "Alice's resend still gets hers")
    }

    @Test func badKeyOptionsAreUsageErrors() throws {
        let bus = try BusFixture()
        let missing = try bus.perform("Echo.say", ["--curve-secret-key", "/nonexistent.key", "--coordinator-key", "/nonexistent.pub"])
        #expect(missing.process.terminationStatus == 2, "a usage error: \(missing.stderr)")
        #expect(missing.stdout.isEmpty)
        let half = try bus.perform("Echo.say", ["--curve-secret-key", "/nonexistent.key"])
        #expect(half.process.terminationStatus == 2)
    }
}
