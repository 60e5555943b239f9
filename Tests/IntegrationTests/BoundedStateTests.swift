import ActionClient
import Foundation
import Testing

/// Tables keyed by session name stay bounded, and the STACKS reply always fits.
@Suite("Bounded coordinator state", .serialized, .timeLimit(.minutes(2)))
struct BoundedStateTests {
    @Test func theStacksOfAnIdleSessionAreClosed() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal", "--stack-idle-seconds", "3"])
        try bus.startWorker("w1", coordinator: coordinator)
        let open = try bus.perform("Documents.open", ["--input", #"{"name":"a.txt"}"#, "--session", "idle-1", "--json"])
        #expect(open.process.terminationStatus == 0)
        #expect(try LoadTests.statistics(bus)["openStacks"] == 1)
        try expect(waitUntil(timeout: .seconds(15)) { (try? LoadTests.statistics(bus)["openStacks"]) == 0 },
                   "the idle session's stack stayed open")
        let stats = try LoadTests.statistics(bus)
        #expect(stats["idleStacksClosed"] == 1, "\(stats)")
        #expect(stats["trackedSessions"] == 0, "\(stats)")
    }

    @Test func aStacksReplyFitsWhateverTheNumberOfOpenStacks() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal", "--max-message-bytes", "65536"])
        try bus.startWorker("w1", coordinator: coordinator)
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = bus.clients
        let client = try ActionClient(configuration: configuration)
        let sessions = 1_500
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...sessions {
                group.addTask {
                    let outcome = try await client.perform(
                        action: "Documents.open", input: Array(#"{"name":"f.txt"}"#.utf8), session: "many-\(n)"
                    )
                    #expect(outcome.isSuccess)
                }
            }
            try await group.waitForAll()
        }
        await client.close()
        let stacks = try bus.start("stacks", ["stacks", "--json", "--coordinator", bus.clients])
        #expect(stacks.waitForExit() == 0, "\(stacks.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(stacks.stdout.utf8)) as? [String: Any]
        let shown = (report?["stacks"] as? [Any])?.count ?? 0
        let omitted = report?["omittedStacks"] as? Int ?? 0
        #expect(shown > 0 && omitted > 0, "\(shown) shown, \(omitted) omitted")
        #expect(shown + omitted == sessions)
    }
}
