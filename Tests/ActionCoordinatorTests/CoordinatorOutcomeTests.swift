import ActionCoordinator
import ActionJournal
import ActionWire
import Foundation
import Testing

/// Outcomes, the outcome stream, duplicates and the queue bound.
@Suite("Coordinator core: outcomes")
struct CoordinatorOutcomeTests {
    let w1 = WorkerID([0xA1])
    let w2 = WorkerID([0xB2])

    /// The REPLAY-REPLY the client got for `queryID`.
    func replayed(_ h: CoordinatorHarness, queryID: String) throws -> ReplayChunk {
        for case .replayed(queryID, let bytes) in h.replies { return try ReplayChunk(bytes: bytes) }
        throw JournalError("no REPLAY-REPLY for \(queryID): \(h.replies)")
    }

    @Test func everyOutcomeTakesTheNextPositionAndAReplayGivesThemBackFiltered() throws {
        let h = CoordinatorHarness()
        h.ready(w1)
        let first = h.perform("a", action: "Documents.open", session: "doc")
        let second = h.perform("b")
        h.complete(first, on: w1, output: #"{"name":"a","text":""}"#)
        var nested = WireOutcome(
            requestID: "w1/1", action: "Sequence.next", session: "doc", worker: "worker-w1", closeActionStack: false,
            result: .success(contentType: WireRequest.json, output: Array("1".utf8))
        )
        nested.nested = true
        h.worker(w1, sends: .result(nested))
        h.complete(second, on: w1)
        // The stream's `all` number is the position, published or not.
        #expect(h.events.map(\.sequences[.all]) == [1, 1, 2, 2, 3, 3])

        h.send(.replay(queryID: "all", prefix: [], from: 1))
        let all = try replayed(h, queryID: "all")
        #expect(all.outcomes.map(\.position) == [1, 2, 3])
        #expect(all.outcomes.map(\.outcome.requestID) == ["a", "w1/1", "b"])
        #expect(all.oldest == 1 && all.head == 3 && all.caughtUp && all.instance == h.core.instance)

        h.send(.replay(queryID: "doc", prefix: OutcomeTopic.prefix(session: "doc"), from: 2))
        #expect(try replayed(h, queryID: "doc").outcomes.map(\.outcome.requestID) == ["w1/1"])
        #expect(h.core.statistics.replays == 2 && h.core.statistics.streamPosition == 3)
    }

    @Test func aRestartReplaysTheJournaledHistoryAndGoesOnFromItsHead() throws {
        let before = CoordinatorHarness()
        before.ready(w1)
        before.complete(before.perform("a"), on: w1)
        before.complete(before.perform("b"), on: w1)
        var journal = JournalSnapshot()
        for record in before.outbox.journaled { journal.append(record) }
        let (recovery, _) = try RequestJournal.recovery(of: journal.bytes)

        let after = CoordinatorHarness()
        after.core.restore(recovery, now: after.t0)
        after.send(.replay(queryID: "q", prefix: [], from: 1))
        #expect(try replayed(after, queryID: "q").outcomes.map(\.outcome) == [try #require(before.outcome("a")), try #require(before.outcome("b"))])
        after.ready(w1)
        after.complete(after.perform("c"), on: w1)
        #expect(after.events.map(\.sequences[.all]) == [3, 3])
    }

    @Test func resultIsForwardedAndPublishedUnderBothTopics() throws {
        let h = CoordinatorHarness()
        h.ready(w1)
        let request = h.perform("c1:1", action: "Documents.open", session: "doc")
        h.complete(request, on: w1, output: #"{"name":"a","text":""}"#)

        let outcome = try #require(h.outcome("c1:1"))
        #expect(outcome.action == "Documents.open")
        #expect(outcome.session == "doc")
        #expect(outcome.worker == "worker-\(w1)")
        #expect(outcome.result == .success(contentType: WireRequest.json, output: Array(#"{"name":"a","text":""}"#.utf8)))
        #expect(h.replies == [.accepted(requestID: "c1:1"), .outcome(outcome)])

        let events = h.events
        #expect(events.count == 2)
        let topics = OutcomeTopic.topics(for: outcome)
        #expect(events.map(\.topic) == [topics.byAction, topics.bySession])
        #expect(events.allSatisfy { $0.outcome == outcome })
        #expect(events.allSatisfy { $0.sequences.values == [1, 1, 1, 1, 1, 1] })
        // Subscribers filtering by feature, action or session match one of the two topics.
        #expect(topics.byAction.starts(with: OutcomeTopic.prefix(action: "Documents.open")))
        #expect(topics.bySession.starts(with: OutcomeTopic.prefix(feature: "Documents", session: "doc")))
    }

    @Test func beganEventsAreAskedForOnlyWhileWantedAndPublishedForWhatRuns() throws {
        let h = CoordinatorHarness()
        func reporting(_ worker: WorkerID) -> [Bool] {
            h.outbox.instructions.compactMap { entry in
                guard entry.worker == worker, case .reporting(let began) = entry.instruction else { return nil }
                return began
            }
        }
        h.ready(w1)
        #expect(reporting(w1) == [false], "told on READY, even that nobody asks (it may remember a coordinator that did)")
        h.core.beganEvents(wanted: true)
        #expect(reporting(w1) == [false, true])
        h.core.beganEvents(wanted: true)
        #expect(reporting(w1) == [false, true], "told only of a change")
        h.ready(w2)
        #expect(reporting(w2) == [true], "a worker that joins is asked too")

        let request = h.perform("c1:1", action: "Documents.open", session: "doc")
        let runsOn = try #require(h.allRequests.first { $0.request.requestID == "c1:1" }?.worker)
        h.worker(runsOn, sends: .began([BeganEvent(requestID: "c1:1", action: "Documents.open", session: "doc"),
                                        BeganEvent(requestID: "not-here", action: "Echo.say", session: "")]))
        let began = h.outbox.stream.compactMap { message -> (topic: [UInt8], events: [BeganEvent])? in
            guard case .began(let topic, let events) = message else { return nil }
            return (topic, events)
        }
        let expected = BeganEvent(requestID: "c1:1", action: "Documents.open", session: "doc", worker: "worker-\(runsOn)")
        let topics = OutcomeTopic.beganTopics(for: expected)
        #expect(began.map(\.topic) == [topics.byAction, topics.bySession], "one event, under both topics; the stray one dropped")
        #expect(began.allSatisfy { $0.events == [expected] })
        #expect(topics.byAction.starts(with: OutcomeTopic.beganPrefix(action: "Documents.open")))
        #expect(topics.bySession.starts(with: OutcomeTopic.beganPrefix(session: "doc")))
        #expect(!topics.byAction.starts(with: OutcomeTopic.prefix()), "an outcome subscriber does not get them")
        #expect(h.core.statistics.beganEvents == 1)
        h.complete(request, on: runsOn)
        h.core.beganEvents(wanted: false)
        #expect(reporting(w1).last == false && reporting(w2).last == false)
    }

    @Test func sequenceNumbersAreGaplessPerScope() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 100)
        // Interleave two sessions and two features.
        let plan: [(String, String)] = [
            ("a", "Echo.say"), ("b", "Echo.say"), ("a", "Documents.open"), ("a", "Echo.say"),
            ("b", "Documents.open"), ("b", "Documents.open"), ("a", "Documents.open"), ("b", "Echo.say"),
        ]
        for (n, (session, action)) in plan.enumerated() {
            let request = h.perform("q\(n)", action: action, session: session)
            h.complete(request, on: w1)
        }
        let events = h.events
        #expect(events.count == plan.count * 2)
        // The two copies of an outcome carry the same numbers.
        for pair in stride(from: 0, to: events.count, by: 2) {
            #expect(events[pair].outcome == events[pair + 1].outcome)
            #expect(events[pair].sequences == events[pair + 1].sequences)
        }
        let published = stride(from: 0, to: events.count, by: 2).map { events[$0] }
        #expect(published.map { $0.sequences[.all] } == Array(1...UInt64(plan.count)))
        for session in ["a", "b"] {
            let mine = published.filter { $0.outcome.session == session }
            #expect(mine.map { $0.sequences[.session] } == Array(1...UInt64(mine.count)), "session \(session)")
            for action in ["Echo.say", "Documents.open"] {
                let scoped = mine.filter { $0.outcome.action == action }
                #expect(scoped.map { $0.sequences[.sessionAction] } == Array(1...UInt64(scoped.count)))
                #expect(scoped.map { $0.sequences[.sessionFeature] } == Array(1...UInt64(scoped.count)))
            }
        }
        for action in ["Echo.say", "Documents.open"] {
            let scoped = published.filter { $0.outcome.action == action }
            #expect(scoped.map { $0.sequences[.action] } == Array(1...UInt64(scoped.count)))
            #expect(scoped.map { $0.sequences[.feature] } == Array(1...UInt64(scoped.count)))
        }
    }

    @Test func failuresDecidedByTheCoordinatorArePublishedToo() throws {
        let h = CoordinatorHarness { $0.maxQueued = 1 }
        h.perform("queued", session: "s")
        h.perform("over", session: "s")
        // Refused before acceptance: the client gets the outcome, the stream does not.
        #expect(h.outcome("over")?.failureCode == BusErrorCode.overloaded)
        #expect(h.events.isEmpty)

        let timed = CoordinatorHarness()
        timed.perform("late", session: "s", timeoutMilliseconds: 100)
        timed.tick(at: .milliseconds(150))
        #expect(timed.outcome("late")?.failureCode == BusErrorCode.noWorker)
        #expect(timed.events.count == 2)
        #expect(timed.events.first?.sequences[.session] == 1)
    }

    @Test func duplicateWhilePendingIsAcceptedAgainAndNotSentTwice() {
        let h = CoordinatorHarness()
        h.ready(w1)
        let request = h.perform("dup")
        h.perform("dup")
        #expect(h.acceptedIDs == ["dup", "dup"])
        #expect(h.requestIDs(to: w1) == ["dup"])
        #expect(h.core.statistics.accepted == 1)
        #expect(h.core.statistics.duplicates == 1)

        // A retry from a new connection moves the answer there.
        let elsewhere = ClientAddress(routingID: [0xC2])
        h.perform("dup", from: elsewhere)
        h.complete(request, on: w1)
        let answered = h.outbox.replies.filter { if case .outcome = $0.reply { true } else { false } }
        #expect(answered.map(\.client) == [elsewhere])
        // Finished, the request holds its owed outcome where it held the moved address: a
        // resend is answered from it, and nothing runs again.
        #expect(h.core.statistics.outcomesOwed == 1)
        h.perform("dup", from: elsewhere)
        let answeredAgain = h.outbox.replies.filter { if case .outcome = $0.reply { true } else { false } }
        #expect(answeredAgain.map(\.client) == [elsewhere, elsewhere])
        #expect(h.requestIDs(to: w1) == ["dup"])
    }

    @Test func duplicateWhileQueuedIsNotQueuedTwice() {
        let h = CoordinatorHarness()
        h.perform("dup")
        h.perform("dup")
        #expect(h.core.statistics.queued == 1)
        h.ready(w1)
        #expect(h.requestIDs(to: w1) == ["dup"])
    }

    @Test func duplicateAfterCompletionGetsTheRecordedOutcome() throws {
        let h = CoordinatorHarness()
        h.ready(w1)
        let request = h.perform("once")
        h.complete(request, on: w1, output: #"{"text":"first"}"#)
        let first = try #require(h.outcome("once"))

        h.perform("once")
        #expect(h.outcomes.filter { $0.requestID == "once" } == [first, first])
        #expect(h.requestIDs(to: w1) == ["once"])
        #expect(h.core.statistics.duplicates == 1)
        #expect(h.core.statistics.accepted == 1)
        #expect(h.core.statistics.completed == 1)
        // Answered from the table: not published again.
        #expect(h.events.count == 2)
    }

    @Test func completedRetentionBoundsTheTable() {
        let h = CoordinatorHarness { $0.completedRetention = 2 }
        h.ready(w1)
        for n in 1...3 {
            let request = h.perform("r\(n)")
            h.complete(request, on: w1)
        }
        // Unacknowledged outcomes are owed to their client: none is evicted yet.
        h.perform("r1")
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3"])
        // Acknowledged, they are bounded: r1 was evicted, so it runs again; r3 is still kept.
        h.send(.acknowledge(requestIDs: ["r1", "r2", "r3"]))
        h.perform("r3")
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3"])
        h.perform("r1")
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3", "r1"])
    }

    @Test func anOutcomeRecoveredTwiceIsKeptOnceAndEvictedInItsTurn() {
        let h = CoordinatorHarness { $0.completedRetention = 2 }
        func finished(_ id: String) -> WireOutcome {
            WireOutcome(requestID: id, action: CoordinatorHarness.echo, session: "", worker: "w", closeActionStack: false,
                        result: .success(contentType: WireRequest.json, output: Array("{}".utf8)))
        }
        var recovery = JournalRecovery()
        // A journal compacted while a record was in flight can hold an outcome twice.
        recovery.finished = [finished("a"), finished("a"), finished("b")]
        h.core.restore(recovery, now: h.at(.zero))
        #expect(h.core.statistics.outcomesKept == 2)
        h.ready(w1)
        h.complete(h.perform("c"), on: w1)
        h.send(.acknowledge(requestIDs: ["c"]))
        // a was the oldest: evicted, so it runs again; b and c are still answered from the table.
        #expect(h.core.statistics.outcomesKept == 2)
        h.perform("b")
        h.perform("c")
        #expect(h.requestIDs(to: w1) == ["c"])
        h.perform("a")
        #expect(h.requestIDs(to: w1) == ["c", "a"])
    }

    @Test func anUnacknowledgedOutcomeIsKeptUntilItsClientStopsWaiting() {
        let h = CoordinatorHarness { $0.completedRetention = 1; $0.owedOutcomeGrace = .seconds(5) }
        h.ready(w1)
        for n in 1...3 {
            h.complete(h.perform("r\(n)", timeoutMilliseconds: 1_000), on: w1)
        }
        #expect(h.core.statistics.outcomesOwed == 3)
        // A resend of a finished request is answered, never run again, whatever the bounds.
        h.perform("r1", at: .seconds(2))
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3"])
        #expect(h.outcomes.filter { $0.requestID == "r1" }.count == 2)
        // Past the deadline and the grace the client no longer waits: the bounds apply again.
        h.tick(at: .seconds(7))
        #expect(h.core.statistics.outcomesOwed == 0)
        #expect(h.core.statistics.outcomesKept == 1)
    }

    @Test func anIdReusedForAnotherRequestIsAConflictNeverTheOtherOutcome() throws {
        let h = CoordinatorHarness()
        h.ready(w1)
        let original = h.perform("key-1", action: "Echo.say", session: "a")
        // While it runs: another action, another session, another input.
        h.perform("key-1", action: "Sequence.next", session: "a")
        h.perform("key-1", action: "Echo.say", session: "b")
        h.core.received(.perform(WireRequest(requestID: "key-1", action: "Echo.say", session: "a", input: Array(#"{"text":"other"}"#.utf8))),
                        from: h.client, now: h.at(.zero))
        #expect(h.outcomes.map(\.failureCode) == ["idempotencyConflict", "idempotencyConflict", "idempotencyConflict"])
        #expect(h.outcomes.first?.failureMessage?.contains("action Echo.say") == true)
        #expect(h.requestIDs(to: w1) == ["key-1"])
        // Finished: the same holds, and an exact resend still gets the recorded outcome.
        h.complete(original, on: w1)
        h.perform("key-1", action: "Fault.fail", session: "a")
        #expect(h.outcomes.last?.failureCode == "idempotencyConflict")
        h.core.received(.perform(original), from: h.client, now: h.at(.zero))
        #expect(h.outcomes.last?.isSuccess == true)
        #expect(h.core.statistics.idempotencyConflicts == 4)
        #expect(h.core.statistics.duplicates == 1)
    }

    /// A coordinator keeping at most 3,000 bytes of outcomes, after r1 to r4 finished with
    /// outputs of about 1,000 bytes each, every one acknowledged at once when `acknowledging`.
    private func fourLargeOutcomes(acknowledging: Bool) -> CoordinatorHarness {
        let h = CoordinatorHarness { $0.completedRetentionBytes = 3_000 }
        h.ready(w1)
        let big = String(repeating: "x", count: 1_000)
        for n in 1...4 {
            h.complete(h.perform("r\(n)"), on: w1, output: #"{"text":"\#(big)"}"#)
            if acknowledging { h.send(.acknowledge(requestIDs: ["r\(n)"])) }
        }
        return h
    }

    @Test func owedOutcomesAreBoundedInBytesToo() {
        let h = fourLargeOutcomes(acknowledging: false)
        // A client that never acknowledges cannot pin more than the byte budget, and owed and
        // recent outcomes share it: two owed, and of the recent ones only the newest is kept.
        #expect(h.core.statistics.outcomesOwed == 2)
        #expect(h.core.statistics.outcomesKept == 3)
    }

    @Test func anOwedOutcomeStaysWithItsRequestButCountsNeitherAsRunningNorAgainstTheQueueLimit() throws {
        let h = CoordinatorHarness { $0.maxQueued = 2 }
        h.ready(w1)
        h.complete(h.perform("r1"), on: w1)
        h.complete(h.perform("r2"), on: w1)
        #expect(h.core.statistics.outcomesOwed == 2)
        #expect(h.core.statistics.running == 0 && h.core.statistics.queued == 0)
        h.send(.queues(queryID: "q"))
        guard case .queues("q", let queuesJSON)? = h.replies.last else {
            Issue.record("no QUEUES reply: \(h.replies)")
            return
        }
        let queues = try JSONDecoder().decode(FleetQueuesReport.self, from: Data(queuesJSON))
        #expect(queues.running == 0 && queues.queued == 0)
        // Two more fit under the limit of two unfinished requests; a fifth does not.
        h.perform("r3")
        h.perform("r4")
        h.perform("r5")
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3", "r4"])
        #expect(h.outcomes.map(\.failureCode) == [nil, nil, BusErrorCode.overloaded])
        #expect(h.core.statistics.running == 2)
        // A cancel of a finished request is answered with its outcome; a resend, likewise.
        h.send(.cancel(requestID: "r1"))
        h.perform("r2")
        #expect(h.outcomes.suffix(2).map(\.requestID) == ["r1", "r2"])
        #expect(h.outcomes.suffix(2).allSatisfy { $0.isSuccess })
        #expect(h.controlInstructions(to: w1).isEmpty)
        // Acknowledged, they are no longer owed but kept as recent (these ids are not of the
        // client's own form, so they are idempotency keys): a resend is still answered, not run.
        h.send(.acknowledge(requestIDs: ["r1", "r2"]))
        #expect(h.core.statistics.outcomesOwed == 0 && h.core.statistics.outcomesKept == 2)
        h.perform("r2")
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3", "r4"])
        #expect(try #require(h.outcomes.last).requestID == "r2")
    }

    @Test func anOwedOutcomesRequestCountsAgainstTheByteBudgetToo() {
        // The request an owed outcome stays in holds its input until the ACK: large inputs with
        // small outputs fill the budget as large outputs do.
        let h = CoordinatorHarness { $0.completedRetentionBytes = 3_000 }
        h.ready(w1)
        let big = Array(#"{"text":"\#(String(repeating: "x", count: 1_000))"}"#.utf8)
        for n in 1...4 {
            let request = WireRequest(requestID: "r\(n)", action: CoordinatorHarness.echo, input: big)
            h.core.received(.perform(request), from: h.client, now: h.at(.zero))
            h.complete(request, on: w1, output: "{}")
        }
        #expect(h.core.statistics.outcomesOwed == 2)
    }

    @Test func majordomoOutcomesAreNeitherOwedNorKept() {
        // MDP has no request identity (each request gets a new id): no one can ask again.
        let h = CoordinatorHarness()
        h.ready(w1)
        let mdp = ClientAddress(routingID: [0xD1], protocol: .majordomo(.rfc18, service: "Echo.say"))
        h.complete(h.perform("m1", from: mdp), on: w1)
        #expect(h.outcome("m1")?.isSuccess == true)
        #expect(h.core.statistics.outcomesOwed == 0)
        #expect(h.core.statistics.outcomesKept == 0)
    }

    @Test func completedRetentionIsAlsoBoundedInBytes() {
        let h = fourLargeOutcomes(acknowledging: true)
        // Acknowledged, only the newest two fit in 3,000 bytes: r2 runs again, r4 is answered
        // from the table.
        h.perform("r4")
        h.perform("r2")
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3", "r4", "r2"])
    }

    @Test func aFullQueueAnswersOverloaded() throws {
        let h = CoordinatorHarness { $0.maxQueued = 2 }
        h.perform("q1")
        h.perform("q2")
        h.perform("q3")
        #expect(h.acceptedIDs == ["q1", "q2"])
        let refused = try #require(h.outcome("q3"))
        #expect(refused.failureCode == BusErrorCode.overloaded)
        #expect(refused.failureMessage?.contains("limit 2") == true)
        #expect(h.core.statistics.overloaded == 1)
        #expect(h.core.statistics.queued == 2)

        // Running requests count too: the bound is on everything accepted and unfinished.
        h.ready(w1, credits: 2)
        h.perform("q4")
        #expect(h.acceptedIDs == ["q1", "q2"])
        #expect(h.outcome("q4")?.failureCode == BusErrorCode.overloaded)
        h.complete(h.request("q1"), on: w1)
        h.perform("q5")
        #expect(h.acceptedIDs == ["q1", "q2", "q5"])
    }

    @Test func oneClientCannotTakeMoreThanItsShare() throws {
        let h = CoordinatorHarness { $0.maxQueuedPerClient = 2 }
        let other = ClientAddress(routingID: [0xC2])
        h.perform("a1")
        h.perform("a2")
        h.perform("a3")
        h.perform("b1", from: other)
        #expect(h.acceptedIDs == ["a1", "a2", "b1"])
        let refused = try #require(h.outcome("a3"))
        #expect(refused.failureCode == BusErrorCode.overloaded)
        #expect(refused.failureMessage?.contains("share") == true)
        #expect(h.core.statistics.clients == 2)
    }

    @Test func timeoutsAreCutToTheMaximum() {
        let h = CoordinatorHarness { $0.maxTimeout = .seconds(10) }
        h.ready(w1)
        h.perform("long", timeoutMilliseconds: UInt32.max)
        let sent = h.requests(to: w1).first?.timeoutMilliseconds ?? 0
        #expect(sent > 0 && sent <= 10_000)
    }

    @Test func pingIsAnsweredWithPong() {
        let h = CoordinatorHarness()
        h.send(.ping)
        #expect(h.replies == [.pong(instance: h.core.instance, epoch: 0)])
        #expect(h.core.instance.count == 16)
    }

    @Test func statsAreAnsweredWithTheCountersAsJSON() throws {
        let h = CoordinatorHarness()
        h.perform("r")
        h.send(.stats(queryID: "q"))
        guard case .stats(let queryID, let json) = try #require(h.replies.last) else {
            Issue.record("no STATS-REPLY: \(h.replies)")
            return
        }
        #expect(queryID == "q")
        let counters = try JSONDecoder().decode([String: Int].self, from: Data(json))
        #expect(counters["accepted"] == 1)
        #expect(counters["queued"] == 1)
        #expect(counters["streamOverflows"] == 0)
    }

    @Test func subscriptionsAreConfirmedOnTheStream() {
        let h = CoordinatorHarness()
        let topic = OutcomeTopic.prefix(session: "s")
        h.core.subscribed(topic: topic)
        #expect(h.outbox.stream == [.subscribed(topic: topic, instance: h.core.instance)])
    }
}
