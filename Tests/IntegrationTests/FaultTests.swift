import ActionBusTestSupport
import Foundation
import Testing

/// Workers dying under load: nothing accepted is lost, and a request that kills every worker it
/// reaches stops after `--max-deliveries`.
@Suite("Fault tolerance", .serialized, .timeLimit(.minutes(3)))
struct FaultTests {
    @Test func killingAWorkerUnderLoadLosesNothing() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let coordinator = try bus.startCoordinator(fast)
        let doomed = try bus.startWorker("w1", coordinator: coordinator, fast)
        try bus.startWorker("w2", coordinator: coordinator, fast)
        // 2,000 requests of 200 ms on 2 × 64 credits: about 3 s of load, so w1 still runs a full
        // share of it when the kill comes (with 5 ms requests the whole load could end between
        // the query that saw w1 busy and the kill, leaving nothing to redeliver).
        let load = try bus.start("load", ["perform", "Clock.sleep", "--input", #"{"ms":200}"#, "--count", "2000",
                                          "--concurrency", "500", "--json", "--coordinator", bus.clients])
        // Killed while it runs requests of the load: those are what must be redelivered.
        try expect(waitUntil(interval: .milliseconds(50)) { (try? bus.listedWorker("w1"))?.inFlight ?? 0 > 0 },
                   "w1 did not take a share of the load")
        doomed.signal(SIGKILL)

        #expect(load.waitForExit(timeout: .seconds(120)) == 0, "\(load.stderr)")
        let outcomes = try OutcomeLine.parse(load.stdoutLines)
        #expect(outcomes.count == 2000)
        #expect(Set(outcomes.map(\.request)).count == 2000, "each request reported once")
        #expect(outcomes.allSatisfy { $0.outcome == "success" })
        let stats = try bus.statistics()
        #expect(stats["workersExpired"] == 1, "w1 was declared dead: \(stats)")
        #expect(stats["redelivered", default: 0] > 0, "what w1 held ran again elsewhere: \(stats)")
        #expect(stats["completed"] == 2000 && stats["accepted"] == 2000, "each request finished once: \(stats)")
    }

    @Test func aRequestThatCrashesWorkersEndsPoisoned() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let coordinator = try bus.startCoordinator(fast + ["--max-deliveries", "3"])
        for name in ["w1", "w2", "w3", "w4"] {
            try bus.startWorker(name, coordinator: coordinator, fast)
        }
        let crash = try bus.perform("Fault.crash", ["--timeout", "30", "--json"], timeout: .seconds(60))
        #expect(crash.process.terminationStatus == 1, "\(crash.stderr)")
        let outcome = try OutcomeLine.parse(crash.stdoutLines).first
        #expect(outcome?.error?.code == "poisoned")
        let stats = try bus.statistics()
        #expect(stats["workersExpired"] == 3, "one worker lost a delivery: \(stats)")
        #expect(stats["redelivered"] == 2, "delivered 3 times, the first not counted: \(stats)")

        // The surviving worker keeps serving everything else.
        let rest = try bus.perform("Echo.say", ["--input", #"{"text":"on"}"#, "--count", "100", "--concurrency", "10", "--json"])
        #expect(rest.process.terminationStatus == 0, "\(rest.stderr)")
        #expect(try OutcomeLine.parse(rest.stdoutLines).count == 100)
    }

    @Test func aStoppedWorkersRequestsCompleteElsewhereAndItsLateOutcomesAreDiscarded() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let coordinator = try bus.startCoordinator(fast)
        let frozen = try bus.startWorker("w1", coordinator: coordinator, fast)
        // Watches every outcome published for Clock.sleep, across w1's resumption below.
        let watcher = try bus.startSubscriber("watcher", ["--action", "Clock.sleep", "--json"])
        let sleeps = try bus.start("sleeps", ["perform", "Clock.sleep", "--input", #"{"ms":2000}"#, "--count", "4",
                                              "--concurrency", "4", "--json", "--coordinator", bus.clients])
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.listedWorker("w1"))?.inFlight == 4 },
                   "w1 did not start the requests")
        // Frozen before its sleeps end; the other worker comes once it is.
        frozen.signal(SIGSTOP)
        defer { frozen.signal(SIGCONT) }
        try bus.startWorker("w2", coordinator: coordinator, fast)

        #expect(sleeps.waitForExit(timeout: .seconds(30)) == 0, "\(sleeps.stderr)")
        let outcomes = try OutcomeLine.parse(sleeps.stdoutLines)
        #expect(outcomes.count == 4)
        #expect(outcomes.allSatisfy { $0.outcome == "success" && $0.worker == "w2" })
        let redelivered = try bus.statistics()
        #expect(redelivered["workersExpired"] == 1 && redelivered["redelivered"] == 4, "\(redelivered)")

        // Resumed, w1 finishes its copies: their outcomes are discarded, and it registers afresh.
        frozen.signal(SIGCONT)
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.statistics()["lateResultsDiscarded"]) == 4 },
                   "w1's late outcomes were not discarded: \(String(describing: try? bus.statistics())) W1: \(frozen.stderr.suffix(2000))")
        try bus.awaitWorker("w1", coordinator: coordinator, process: frozen)
        // Nothing of w1's reached a client or the stream: the stream, read on past a marker
        // published after them, holds each request's outcome once, all of them w2's.
        let marker = try bus.perform("Clock.sleep", ["--input", #"{"ms":0}"#, "--json"])
        let markerID = try #require(try OutcomeLine.parse(marker.stdoutLines).first?.request)
        try expect(waitUntil { watcher.stdout.contains(markerID) }, "the watcher never saw the marker: \(watcher.stdout)")
        let published = try OutcomeLine.parse(watcher.stdoutLines).filter { $0.request != markerID }
        #expect(published.map(\.request).sorted() == outcomes.map(\.request).sorted(), "each request published once")
        #expect(published.allSatisfy { $0.worker == "w2" })
        let after = try bus.statistics()
        #expect(after["completed"] == 5 && after["duplicates"] == 0, "\(after)")
    }

    @Test func killingTheCoordinatorLosesNothingAccepted() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        let first = try bus.startCoordinator(fast)
        let worker = try bus.startWorker("w1", coordinator: first, fast + ["--credits", "16"])
        let load = try bus.start("load", ["perform", "Clock.sleep", "--input", #"{"ms":20}"#, "--count", "2000",
                                          "--concurrency", "2000", "--timeout", "120", "--json", "--coordinator", bus.clients])
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.statistics()["completed"]) ?? 0 > 200 },
                   "w1 did not start serving: \(worker.stderr)")
        first.signal(SIGKILL)
        try expect(first.waitForExit(timeout: .seconds(10)) != nil, "the coordinator did not die")
        let answeredBeforeKill = load.stdoutLines.count
        #expect(answeredBeforeKill < 1500, "the kill came too late to test anything (\(answeredBeforeKill) answered)")

        let second = try bus.startCoordinator(fast, name: "coordinator-2")
        let opened = try #require(second.logRecords(withField: "journal.unfinished").first, "no journal opened: \(second.stderr)")
        #expect(opened.integer("journal.unfinished") ?? 0 > 0, "the journal held no unfinished work: \(second.stderr)")

        #expect(load.waitForExit(timeout: .seconds(120)) == 0, "\(load.stderr)")
        let outcomes = try OutcomeLine.parse(load.stdoutLines)
        #expect(outcomes.count == 2000)
        #expect(Set(outcomes.map(\.request)).count == 2000, "each request reported once")
        #expect(outcomes.allSatisfy { $0.outcome == "success" }, "\(outcomes.first { $0.outcome != "success" }.map { "\($0)" } ?? "")")
    }

    @Test func aCoordinatorWhoseJournalCannotBeWrittenStopsAndItsSuccessorFinishesTheWork() throws {
        let bus = try BusFixture()
        let fast = ["--heartbeat-ms", "200"]
        // A disk that fills up: writes past 64 KiB fail with EFBIG (SIGXFSZ ignored, so the
        // write returns the error instead of killing the process).
        let doomed = try bus.startCoordinator(fast, shellPrefix: "ulimit -f 64; trap '' XFSZ")
        let worker = try bus.startWorker("w1", coordinator: doomed, fast)
        let load = try bus.start("load", ["perform", "Echo.say", "--input", #"{"text":"durable"}"#, "--count", "600",
                                          "--concurrency", "50", "--timeout", "60", "--json", "--log-level", "info",
                                          "--coordinator", bus.clients])
        #expect(doomed.waitForExit(timeout: .seconds(60)) == 1, "the coordinator kept going: \(doomed.stderr.suffix(2000))")
        // It stopped because of the journal (the critical record of a failed write says how
        // many replies it withheld), not for another reason.
        #expect(doomed.logRecords(withField: "replies.withheld").contains { $0.level == "critical" && $0.fields["journal.error"] != nil },
                "\(doomed.stderr.suffix(2000))")
        #expect(load.stdoutLines.count < 600, "the disk filled too late to test anything")

        let successor = try bus.startCoordinator(fast, name: "coordinator-2")
        #expect(load.waitForExit(timeout: .seconds(120)) == 0,
                "client: \(load.stderr.suffix(2000)) coordinator: \(successor.stderr.suffix(3000)) worker: \(worker.stderr.suffix(2000))")
        let outcomes = try OutcomeLine.parse(load.stdoutLines)
        #expect(outcomes.count == 600)
        #expect(Set(outcomes.map(\.request)).count == 600, "each request reported once")
        #expect(outcomes.allSatisfy { $0.outcome == "success" })
    }

    @Test func aStalledSubscriberNeitherSlowsRequestsNorGoesUnnoticed() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--outcome-hwm", "100"])
        try bus.startWorker("w1", coordinator: coordinator)
        let stalled = try bus.startSubscriber("stalled", ["--feature", "Echo", "--json"])
        let watching = try bus.startSubscriber("watching", ["--feature", "Echo", "--json"])
        stalled.signal(SIGSTOP)
        defer { stalled.signal(SIGCONT) }

        // Outcomes of 4 KB each: far more than the stalled subscriber's socket buffers hold.
        let text = String(repeating: "x", count: 4000)
        let load = try bus.perform("Echo.say", ["--input", #"{"text":"\#(text)"}"#, "--count", "10000", "--concurrency", "200",
                                                "--timeout", "60"], timeout: .seconds(120))
        #expect(load.process.terminationStatus == 0, "\(load.stderr)")
        #expect(load.stdoutLines.count == 10000)
        let counters = try bus.statistics()
        #expect(counters["streamOverflows", default: 0] >= 1, "no drop was counted: \(counters)")
        #expect(counters["completed"] == 10_000)

        // The other subscriber is still served, and the stalled one, resumed, reports its gap.
        let marker = try bus.perform("Echo.say", ["--input", #"{"text":"after-the-flood"}"#])
        #expect(marker.process.terminationStatus == 0)
        try expect(waitUntil { watching.stdout.contains("after-the-flood") }, "the reading subscriber missed the last outcome")
        stalled.signal(SIGCONT)
        // Outcomes published while its queue was full are gone; once it has drained the queue,
        // the next outcome it gets shows the gap.
        var caughtUp = false
        for attempt in 1...30 where !caughtUp {
            _ = try bus.perform("Echo.say", ["--input", #"{"text":"resumed-\#(attempt)"}"#])
            caughtUp = waitUntil(timeout: .seconds(2)) { stalled.stdout.contains("resumed-") }
        }
        try expect(caughtUp, "the resumed subscriber did not catch up")
        // Its sequence numbers (of the Echo scope) jump where outcomes were dropped.
        let sequences = try OutcomeLine.parse(stalled.stdoutLines).compactMap(\.sequence)
        #expect(zip(sequences, sequences.dropFirst()).contains { $1 > $0 + 1 }, "the resumed subscriber saw no gap: \(sequences.suffix(20))")
    }
}
