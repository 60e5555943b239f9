import ActionBusTestSupport
import ActionClient
import ActionWire
import Foundation
import Testing
import ZeroMQ

/// Tables keyed by session name stay bounded, and the STACKS reply always fits.
@Suite("Bounded coordinator state", .serialized, .timeLimit(.minutes(2)))
struct BoundedStateTests {
    @Test func theStacksOfAnIdleSessionAreClosed() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal", "--stack-idle-seconds", "3"])
        try bus.startWorker("w1", coordinator: coordinator)
        let open = try bus.perform("Documents.open", ["--input", #"{"name":"a.txt"}"#, "--session", "idle-1", "--json"])
        #expect(open.process.terminationStatus == 0)
        #expect(try bus.statistics()["openStacks"] == 1)
        try expect(waitUntil(timeout: .seconds(15), interval: .milliseconds(200)) { (try? bus.statistics()["openStacks"]) == 0 },
                   "the idle session's stack stayed open")
        let stats = try bus.statistics()
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
        do {
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
        } catch {
            await client.close()
            throw error
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

/// What a subscriber learns when the coordinator restarts under it.
@Suite("Stream across restarts", .serialized, .timeLimit(.minutes(2)))
struct StreamRestartTests {
    @Test func aSubscriberReportsACoordinatorRestartAsAPossibleGap() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let first = try bus.startCoordinator(fast)
        try bus.startWorker("w1", coordinator: first, fast)
        let subscriber = try bus.startSubscriber("subscriber", ["--json"])
        let before = try bus.perform("Echo.say", ["--input", #"{"text":"before"}"#])
        #expect(before.process.terminationStatus == 0)
        try expect(waitUntil { subscriber.stdoutLines.count == 1 }, "the subscriber missed the first outcome")

        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        let second = try bus.startCoordinator(fast, name: "coordinator-2")
        try bus.awaitWorker("w1", coordinator: second)
        // The subscriber resubscribes by itself; its next outcome says the coordinator restarted.
        try expect(waitUntil(timeout: .seconds(20), interval: .milliseconds(200)) {
            _ = try bus.perform("Echo.say", ["--input", #"{"text":"after"}"#, "--timeout", "2"], timeout: .seconds(10))
            return subscriber.logRecords(withField: "stream.coordinatorRestarts").last?.integer("stream.coordinatorRestarts") == 1
        }, "no restart reported: \(subscriber.stderr)")
        // Lines reach standard output in chunks, within 20 ms of their stderr notice.
        #expect(waitUntil { subscriber.stdoutLines.contains { $0.contains(#""after""#) } })
    }
}

/// Floods on the outcomes socket.
@Suite("Subscription floods", .serialized, .timeLimit(.minutes(2)))
struct SubscriptionFloodTests {
    /// A peer sending tens of thousands of subscriptions does not bury a legitimate subscriber
    /// in confirmations: it still gets every outcome, without a gap.
    @Test func aFloodOfSubscriptionsDoesNotStarveOtherSubscribers() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal", "--outcome-hwm", "1000"])
        try bus.startWorker("w1", coordinator: coordinator)
        let subscriber = try bus.startSubscriber("subscriber", ["--feature", "Echo", "--limit", "200", "--json"])

        // Raw subscription messages under the subscriber's prefix, as fast as they go.
        let context = try ZMQContext()
        let flooder = try Socket(context, type: .xsub)
        defer { flooder.close() }
        try flooder.setOption(.sendHighWaterMark, 0)
        try flooder.connect(bus.outcomes)
        let topic = [UInt8(1)] + OutcomeTopic.prefix(feature: "Echo", action: "say", session: "flood")
        for _ in 0..<50_000 { try flooder.send(topic) }

        let perform = try bus.perform("Echo.say", ["--input", #"{"text":"x"}"#, "--count", "200", "--concurrency", "20"])
        #expect(perform.process.terminationStatus == 0)
        try expect(subscriber.waitForExit(timeout: .seconds(30)) != nil, "the subscriber did not get its 200 outcomes")
        #expect(subscriber.stdoutLines.count == 200)
        let sequences = try OutcomeLine.parse(subscriber.stdoutLines).compactMap(\.sequence)
        #expect(sequences == Array(1...200), "every outcome, without a gap: \(sequences.prefix(20))")
        let stats = try bus.statistics()
        #expect(stats["streamOverflows"] == 0, "\(stats)")
    }
}
