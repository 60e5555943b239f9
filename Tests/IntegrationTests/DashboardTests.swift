import ActionBusTestSupport
import Foundation
import Testing

/// The dashboard in a real headless browser (Debian's `chromium`, driven over the DevTools
/// protocol by a small Python script): the page loads, lists a worker the test started, and an
/// outcome the test performs appears in the live tail. A screenshot is left in `.build/`.
@Suite("Dashboard", .serialized, .timeLimit(.minutes(3)))
struct DashboardTests {
    static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test(.enabled(if: (chromium != nil && MajordomoInteropTests.python != nil) || ProcessInfo.processInfo.environment["ACTIONBUS_REQUIRE_BROWSER"] != nil,
                   "needs chromium and the test venv: run scripts/test.sh"))
    func theDashboardListsWorkersAndTailsOutcomesInABrowser() throws {
        try checkInABrowser(token: nil)
    }

    /// Off loopback the outcomes need the token: the page takes it from its address's fragment.
    @Test(.enabled(if: (chromium != nil && MajordomoInteropTests.python != nil) || ProcessInfo.processInfo.environment["ACTIONBUS_REQUIRE_BROWSER"] != nil,
                   "needs chromium and the test venv: run scripts/test.sh"))
    func theDashboardTailsOutcomesWithTheServersToken() throws {
        try checkInABrowser(token: "dashboard-" + UUID().uuidString)
    }

    func checkInABrowser(token: String?) throws {
        let chromium = try #require(Self.chromium, "ACTIONBUS_REQUIRE_BROWSER is set but chromium is not installed")
        let python = try #require(MajordomoInteropTests.python, "no Python with the test packages")
        let bus = try BusFixture()
        let http = try freeLoopbackPort()
        var options = ["--http", "127.0.0.1:\(http)"]
        var headers: [String: String] = [:]
        if let token {
            let file = bus.directory.appendingPathComponent("token").path
            try token.write(toFile: file, atomically: true, encoding: .utf8)
            options = ["--http", "0.0.0.0:\(http)", "--http-token-file", file]
            headers = ["Authorization": "Bearer \(token)"]
        }
        let coordinator = try bus.startCoordinator(options)
        try bus.startWorker("dashboard-w1", coordinator: coordinator)
        try expect(waitUntil { httpRequest(port: http, path: "/healthz")?.status == 200 }, "no HTTP: \(coordinator.stderr)")
        let page = try #require(httpRequest(port: http, path: "/"))
        #expect(page.status == 200 && page.body.contains("<title>ActionBus</title>"))

        let screenshot = Self.repository.appendingPathComponent(token == nil ? ".build/dashboard.png" : ".build/dashboard-token.png").path
        let script = Self.repository.appendingPathComponent("Tests/IntegrationTests/Support/browser/dashboard_check.py").path
        let check = try bus.startProgram("browser", python.path, [
            script, chromium, "http://127.0.0.1:\(http)/" + (token.map { "#token=\($0)" } ?? ""), "dashboard-w1", screenshot, "--",
            BusProcess.executable.path, "perform", "Echo.say", "--input", #"{"text":"seen in the browser"}"#, "--session", "dash-1",
            "--json", "--coordinator", bus.clients,
        ])
        #expect(check.waitForExit(timeout: .seconds(120)) == 0, "\(check.stdout)\(check.stderr)")
        let seen = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any]
        #expect((seen?["workers"] as? String)?.contains("dashboard-w1") == true)
        let tail = seen?["tail"] as? String ?? ""
        #expect(tail.contains("Echo.say") && tail.contains("dash-1") && tail.contains("seen in the browser"), "\(tail)")
        #expect((seen?["stacks"] as? String)?.contains("dash-1 › Echo: Echo.say") == true, "\(seen?["stacks"] ?? "")")
        #expect(FileManager.default.fileExists(atPath: screenshot))

        // Bad input to the APIs is a 4xx with a message, and the server keeps serving.
        #expect(httpRequest(port: http, path: "/api/outcomes?limit=0", headers: headers)?.status == 400)
        #expect(httpRequest(port: http, path: "/api/outcomes?limit=lots", headers: headers)?.status == 400)
        #expect(httpRequest(port: http, path: "/api/outcomes?session=dash-1", headers: headers)?.body.contains("seen in the browser") == true)
        #expect(httpRequest("DELETE", port: http, path: "/api/workers")?.status == 405)
        #expect(httpRequest(port: http, path: "/api/workers")?.status == 200)
    }
}
