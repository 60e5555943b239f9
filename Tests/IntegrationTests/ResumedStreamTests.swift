import ActionBusTestSupport
import ActionClient
import Foundation
import Locking
import Testing

/// A subscriber that resumes from a stream position (`actionbus subscribe --from`,
/// `ActionClient.outcomes(from:)`): it gets what the coordinator kept, then the live stream,
/// with no gap and nothing twice across a coordinator's `kill -9`; a position outside what the
/// coordinator keeps is refused plainly.
@Suite("A resumed outcome stream", .serialized, .timeLimit(.minutes(3)))
struct ResumedStreamTests {
    /// Starts `actionbus subscribe --from 1` for `count` outcomes, printing JSON.
    static func startResumingSubscriber(_ bus: BusFixture, count: Int, clients: String, outcomes: String) throws -> BusProcess {
        try bus.start("subscriber", ["subscribe", "--from", "1", "--limit", "\(count)", "--json", "--timeout", "30",
                                     "--coordinator", clients, "--outcomes", outcomes])
    }

    /// The subscriber printed each of `answered` once, in growing positions, and nothing else.
    static func expectSawEachOnce(_ subscriber: BusProcess, _ answered: [String]) throws {
        #expect(subscriber.waitForExit(timeout: .seconds(60)) == 0, "the subscriber did not see them all: \(subscriber.stderr.suffix(2000))")
        let seen = try OutcomeLine.parse(subscriber.stdoutLines)
        #expect(seen.map(\.request).sorted() == answered.sorted(), "each outcome once: \(seen.count) seen for \(answered.count)")
        let positions = seen.compactMap(\.position)
        #expect(positions.count == seen.count && zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 }, "positions only grow")
    }

    @Test func aSubscriberResumingFromTheStartSeesEveryOutcomeOnceAcrossACoordinatorKill() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let first = try bus.startCoordinator(fast)
        try bus.startWorker("w1", coordinator: first, fast + ["--credits", "16"])
        let count = 2000
        let load = try bus.start("load", ["perform", "Clock.sleep", "--input", #"{"ms":20}"#, "--count", "\(count)",
                                          "--concurrency", "\(count)", "--timeout", "120", "--json", "--coordinator", bus.clients])
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.statistics()["completed"]) ?? 0 > 200 }, "the load did not start")
        let subscriber = try Self.startResumingSubscriber(bus, count: count, clients: bus.clients, outcomes: bus.outcomes)
        try expect(waitUntil(interval: .milliseconds(50)) { subscriber.stdoutLines.count > 300 }, "the subscriber printed nothing: \(subscriber.stderr)")
        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        try bus.startCoordinator(fast, name: "coordinator-2")

        #expect(load.waitForExit(timeout: .seconds(120)) == 0, "\(load.stderr.suffix(2000))")
        let answered = try OutcomeLine.parse(load.stdoutLines).map(\.request)
        #expect(answered.count == count)
        try Self.expectSawEachOnce(subscriber, answered)
    }

    @Test func aPositionOlderThanTheHistoryOrBeyondItsHeadIsRefusedWithItsBounds() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--stream-history", "10"])
        try bus.startWorker("w1", coordinator: coordinator)
        _ = try bus.perform("Echo.say", ["--count", "30", "--concurrency", "10"], timeout: .seconds(60))
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = bus.clients
        configuration.outcomesEndpoint = bus.outcomes
        let client = try ActionClient(configuration: configuration)
        defer { Task { await client.close() } }

        await #expect { _ = try await client.outcomes(from: 5) } throws: { ($0 as? ActionBusError)?.code == "outsideRetention" }
        await #expect { _ = try await client.outcomes(from: 40) } throws: { ($0 as? ActionBusError)?.code == "positionAhead" }
        // The ten kept, then live; read for a bounded time.
        let stream = try await client.outcomes(from: 21)
        let kept = Locked<[UInt64]>([])
        let reader = Task { for try await outcome in stream { kept.withLock { $0.append(outcome.position) } } }
        defer { reader.cancel() }
        #expect(await eventually(timeout: .seconds(10)) { kept.withLock { $0.count } >= 10 })
        #expect(kept.withLock { $0 } == Array(21...30))
        let statistics = try bus.statistics()
        #expect(statistics["streamPosition"] == 30 && statistics["streamOldestPosition"] == 21, "\(statistics)")
    }
}
