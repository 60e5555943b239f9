import ActionBusTestSupport
import Foundation
import Testing

/// Outcomes' payloads over HTTP (`/api/outcomes`, the live tail) need the bearer token, or a
/// loopback address; the probes, `/metrics` and the fleet reports stay open and carry none.
@Suite(.timeLimit(.minutes(2)))
struct PayloadAccessTests {
    /// A text no report but an outcome's output can hold.
    static let secret = "payload-\(UUID().uuidString)"

    /// The headers of a WebSocket upgrade of `/api/live`.
    static let upgrade = [
        "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    ]

    /// Starts a coordinator serving HTTP on every address with `extra` options, a worker, and
    /// one `Echo.say` of ``secret``; returns the HTTP port.
    func busWithOneOutcome(_ bus: BusFixture, _ extra: [String]) throws -> Int {
        let http = try freeLoopbackPort()
        let coordinator = try bus.startCoordinator(["--no-journal", "--http", "0.0.0.0:\(http)"] + extra)
        try expect(waitUntil { httpRequest(port: http, path: "/healthz")?.status == 200 }, "no /healthz: \(coordinator.stderr)")
        try bus.startWorker("w1", coordinator: coordinator)
        let perform = try bus.perform("Echo.say", ["--input", #"{"text":"\#(Self.secret)"}"#])
        try expect(perform.process.terminationStatus == 0 && perform.stdout.contains(Self.secret), "\(perform.stderr)")
        return http
    }

    @Test func offLoopbackWithoutATokenNoPayloadIsServedButProbesAndMetricsAre() throws {
        let bus = try BusFixture()
        let http = try busWithOneOutcome(bus, [])
        for path in ["/healthz", "/readyz", "/metrics", "/api/stats", "/api/workers", "/api/queues", "/api/features", "/api/stacks"] {
            let reply = try #require(httpRequest(port: http, path: path), "\(path) did not answer")
            #expect(reply.status == 200, "\(path): \(reply)")
            #expect(!reply.body.contains(Self.secret), "\(path) shows an outcome's payload")
        }
        let outcomes = try #require(httpRequest(port: http, path: "/api/outcomes"))
        #expect(outcomes.status == 403 && !outcomes.body.contains(Self.secret), "\(outcomes)")
        #expect(httpRequest(port: http, path: "/api/live", headers: Self.upgrade, timeout: 2)?.status == 403)
    }

    @Test func withATokenFileOnlyItsBearerReadsPayloads() throws {
        let bus = try BusFixture()
        let token = "t0k3n-" + UUID().uuidString
        let tokenFile = bus.directory.appendingPathComponent("http-token").path
        try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let http = try busWithOneOutcome(bus, ["--http-token-file", tokenFile])

        let anonymous = try #require(httpRequest(port: http, path: "/api/outcomes"))
        #expect(anonymous.status == 401 && !anonymous.body.contains(Self.secret), "\(anonymous)")
        let wrong = try #require(httpRequest(port: http, path: "/api/outcomes", headers: ["Authorization": "Bearer \(token)x"]))
        #expect(wrong.status == 401 && !wrong.body.contains(Self.secret), "\(wrong)")
        let bearer = try #require(httpRequest(port: http, path: "/api/outcomes", headers: ["Authorization": "Bearer \(token)"]))
        #expect(bearer.status == 200 && bearer.body.contains(Self.secret), "\(bearer)")

        // A browser's WebSocket cannot send headers: the live tail takes the token as access_token.
        #expect(httpRequest(port: http, path: "/api/live", headers: Self.upgrade, timeout: 2)?.status == 401)
        #expect(httpRequest(port: http, path: "/api/live?access_token=\(token)", headers: Self.upgrade, timeout: 2)?.status == 101)
        // The probes stay open to anyone.
        #expect(httpRequest(port: http, path: "/readyz")?.status == 200)
        #expect(httpRequest(port: http, path: "/metrics")?.status == 200)
    }

    @Test func onLoopbackWithoutATokenPayloadsAreServedAsInDevelopment() throws {
        let bus = try BusFixture()
        let http = try freeLoopbackPort()
        let coordinator = try bus.startCoordinator(["--no-journal", "--http", "127.0.0.1:\(http)"])
        try bus.startWorker("w1", coordinator: coordinator)
        #expect(try bus.perform("Echo.say", ["--input", #"{"text":"\#(Self.secret)"}"#]).process.terminationStatus == 0)
        let outcomes = try #require(httpRequest(port: http, path: "/api/outcomes"))
        #expect(outcomes.status == 200 && outcomes.body.contains(Self.secret), "\(outcomes)")
    }

    @Test func aTokenFileThatCannotServeStopsTheCoordinatorBeforeItServes() throws {
        let bus = try BusFixture()
        let short = bus.directory.appendingPathComponent("short").path
        try "abc\n".write(toFile: short, atomically: true, encoding: .utf8)
        for (index, file) in [short, bus.directory.appendingPathComponent("missing").path].enumerated() {
            let http = try freeLoopbackPort()
            let coordinator = try bus.start("coordinator-\(index)", [
                "coordinator", "--no-journal", "--clients", bus.clients, "--workers", bus.workers, "--outcomes", bus.outcomes,
                "--http", "0.0.0.0:\(http)", "--http-token-file", file,
            ])
            let status = coordinator.waitForExit(timeout: .seconds(20))
            #expect(status != nil && status != 0, "a coordinator with token file \(file) kept running")
            #expect(httpRequest(port: http, path: "/healthz", timeout: 1) == nil)
        }
    }
}
