import ActionBusTestSupport
import Foundation
import Testing

/// The bus as users run it: a coordinator, workers and clients as separate `actionbus`
/// processes on loopback TCP.
@Suite("Distributed bus", .serialized, .timeLimit(.minutes(3)))
struct DistributedBusTests {
    @Test func requestsSpreadOverBothWorkers() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator, ["--credits", "4"])
        try bus.startWorker("w2", coordinator: coordinator, ["--credits", "4"])
        let perform = try bus.perform("Clock.sleep", ["--input", #"{"ms":20}"#, "--count", "40", "--concurrency", "8", "--json"])
        #expect(perform.process.terminationStatus == 0, "\(perform.stderr)")
        let outcomes = try OutcomeLine.parse(perform.stdoutLines)
        #expect(outcomes.count == 40)
        #expect(outcomes.allSatisfy { $0.outcome == "success" && $0.output?["sleptMs"]?.number == 20 })
        #expect(Set(outcomes.map(\.request)).count == 40, "every request has its own identity")
        let perWorker = Dictionary(grouping: outcomes, by: \.worker).mapValues(\.count)
        #expect(Set(perWorker.keys) == ["w1", "w2"], "\(perWorker)")
    }

    @Test func pipelinedSessionRequestsRunInOrderOnOneWorker() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        try bus.startWorker("w2", coordinator: coordinator)
        let perform = try bus.perform("Sequence.next", ["--session", "seq-1", "--count", "500", "--concurrency", "500", "--json"])
        #expect(perform.process.terminationStatus == 0, "\(perform.stderr)")
        let outcomes = try OutcomeLine.parse(perform.stdoutLines)
        #expect(outcomes.map { Int($0.output?["n"]?.number ?? -1) } == Array(1...500))
        #expect(Set(outcomes.map(\.worker)).count == 1)
        #expect(outcomes.allSatisfy { $0.session == "seq-1" })
    }

    @Test func actionStacksSpanWorkersAndCloseOnClose() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--heartbeat-ms", "200"])
        let first = try bus.startWorker("w1", coordinator: coordinator, ["--heartbeat-ms", "200"])
        let open = try bus.perform("Documents.open", ["--input", #"{"name":"a.txt"}"#, "--session", "doc-1", "--json"])
        #expect(try OutcomeLine.parse(open.stdoutLines).map(\.worker) == ["w1"])

        // The session's worker leaves; the session moves to the other worker.
        try bus.startWorker("w2", coordinator: coordinator, ["--heartbeat-ms", "200"])
        first.signal(SIGTERM)
        #expect(first.waitForExit(timeout: .seconds(10)) != nil)
        let reopen = try bus.perform("Documents.open", ["--input", #"{"name":"a.txt"}"#, "--session", "doc-1", "--json"])
        let edit = try bus.perform("Documents.edit", ["--input", #"{"name":"a.txt","text":"hello"}"#, "--session", "doc-1", "--json"])
        #expect(try OutcomeLine.parse(reopen.stdoutLines + edit.stdoutLines).map(\.worker) == ["w2", "w2"])
        #expect(edit.process.terminationStatus == 0, "\(edit.stdout) \(edit.stderr)")

        let stacks = try bus.start("stacks", ["stacks", "--json", "--session", "doc-1", "--coordinator", bus.clients])
        #expect(stacks.waitForExit() == 0, "\(stacks.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(stacks.stdout.utf8)) as? [String: Any]
        let openStacks = report?["stacks"] as? [[String: Any]] ?? []
        #expect(openStacks.count == 1)
        #expect(openStacks.first?["featureName"] as? String == "Documents")
        #expect(openStacks.first?["sessionName"] as? String == "doc-1")
        let entries = (openStacks.first?["entries"] as? [[String: Any]] ?? []).compactMap { $0["actionName"] as? String }
        #expect(entries == ["Documents.open", "Documents.open", "Documents.edit"])

        let close = try bus.perform("Documents.close", ["--input", #"{"name":"a.txt"}"#, "--session", "doc-1", "--json"])
        #expect(try OutcomeLine.parse(close.stdoutLines).first?.closeActionStack == true)
        let after = try bus.start("stacks-after", ["stacks", "--json", "--session", "doc-1", "--coordinator", bus.clients])
        #expect(after.waitForExit() == 0)
        let afterReport = try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any]
        #expect((afterReport?["stacks"] as? [Any])?.isEmpty == true)
    }

    @Test func sessionSubscriberSeesExactlyItsSessionWithGaplessSequences() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        try bus.startWorker("w2", coordinator: coordinator)
        let subscriber = try bus.startSubscriber("subscriber", ["--session", "watched", "--limit", "30", "--json"])

        let watched = try bus.start("watched", ["perform", "Echo.say", "--input", #"{"text":"w"}"#, "--session", "watched",
                                                "--count", "30", "--concurrency", "5", "--coordinator", bus.clients])
        let other = try bus.start("other", ["perform", "Echo.say", "--input", #"{"text":"o"}"#, "--session", "other",
                                              "--count", "30", "--concurrency", "5", "--coordinator", bus.clients])
        #expect(watched.waitForExit() == 0)
        #expect(other.waitForExit() == 0)
        #expect(subscriber.waitForExit() == 0, "\(subscriber.stderr)")
        let seen = try OutcomeLine.parse(subscriber.stdoutLines)
        #expect(seen.count == 30)
        #expect(seen.allSatisfy { $0.session == "watched" })
        #expect(seen.compactMap(\.sequence) == Array(1...30), "gapless")
    }

    @Test func badRequestsGetClearErrors() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)

        func failure(_ action: String, _ arguments: [String]) throws -> (status: Int32, code: String?) {
            let perform = try bus.perform(action, arguments + ["--json"])
            return (perform.process.terminationStatus, try OutcomeLine.parse(perform.stdoutLines).first?.error?.code)
        }
        #expect(try failure("Echo.say", ["--input", #"{"wrong":1}"#]) == (1, "invalidInput"))
        #expect(try failure("Fault.fail", ["--input", #"{"message":"boom"}"#]) == (1, "actionFailed"))
        #expect(try failure("Fault.hang", ["--timeout", "0.5"]) == (1, "timedOut"))
        #expect(try failure("Nope.missing", ["--timeout", "0.5"]) == (1, "noWorker"))
        #expect(try failure("Math.fibonacci", ["--input", #"{"n":-1}"#]) == (1, "invalidInput"))

        let usage = try bus.perform("NotAnAction", [])
        #expect(usage.process.terminationStatus == 2, "a usage error")
        let badJSON = try bus.perform("Echo.say", ["--input", "{oops"])
        #expect(badJSON.process.terminationStatus == 2)

        // The bus still serves after all of that.
        let ok = try bus.perform("Echo.say", ["--input", #"{"text":"still here"}"#, "--json"])
        #expect(ok.process.terminationStatus == 0)
        #expect(try OutcomeLine.parse(ok.stdoutLines).first?.output?["text"]?.string == "still here")
    }

    @Test func performWithoutACoordinatorFailsClearlyWithinItsTimeout() throws {
        let bus = try BusFixture()
        let perform = try bus.perform(
            "Echo.say", ["--input", #"{"text":"hi"}"#, "--timeout", "0.5", "--log-format", "json", "--log-level", "info"], timeout: .seconds(20)
        )
        #expect(perform.process.terminationStatus == 2)
        #expect(perform.stdout.isEmpty, "no outcome")
        let unanswered = perform.logRecords(withField: "error.code").last
        #expect(unanswered?.fields["error.code"] == "unreachable", "\(perform.stderr)")
        #expect(unanswered?.fields["coordinator.endpoint"] == bus.clients, "\(perform.stderr)")
    }

    @Test func anIdempotencyKeyReusedForAnotherRequestIsRefusedClearly() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        try bus.startWorker("w1", coordinator: coordinator)
        let first = try bus.perform("Sequence.next", ["--session", "k", "--idempotency-key", "order-42", "--json"])
        #expect(first.process.terminationStatus == 0)
        let again = try bus.perform("Sequence.next", ["--session", "k", "--idempotency-key", "order-42", "--json"])
        #expect(try OutcomeLine.parse(again.stdoutLines).first?.output?["n"]?.number == 1, "a true retry gets the recorded outcome")
        let reused = try bus.perform("Echo.say", ["--input", #"{"text":"x"}"#, "--idempotency-key", "order-42", "--json"])
        #expect(reused.process.terminationStatus == 1)
        let outcome = try OutcomeLine.parse(reused.stdoutLines).first
        #expect(outcome?.error?.code == "idempotencyConflict", "\(reused.stdout)")
        #expect(outcome?.error?.message.contains("Sequence.next") == true)
    }
}
