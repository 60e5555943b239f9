import ActionCoordinator
import ActionJournal
import ActionWire
import Foundation
import Testing

/// What the core writes to the journal, and how it resumes from what a journal held.
@Suite("Coordinator core: journal")
struct CoordinatorJournalTests {
    let w1 = WorkerID([0xA1])
    let w2 = WorkerID([0xB2])

    /// Starts `h` as a coordinator whose journal held `request` unfinished, due in a minute.
    func restore(_ request: WireRequest, into h: CoordinatorHarness, workerDeaths: Int = 0) {
        var recovery = JournalRecovery()
        recovery.unfinished = [RecoveredRequest(request: request, deadline: Date().addingTimeInterval(60), workerDeaths: workerDeaths)]
        h.core.restore(recovery, now: h.at(.zero))
    }

    /// A deadline is held as nanoseconds after the process's clock epoch, saturated: one read back
    /// from a journal centuries past is the earliest there is, and the time left to send with it
    /// must stay on that side (the shortest timeout), not wrap round to the longest.
    @Test func deadlinesBeyondTheClocksRangeStayOnTheirSide() {
        let h = CoordinatorHarness()
        var recovery = JournalRecovery()
        recovery.unfinished = [RecoveredRequest(request: h.request("ancient"), deadline: .distantPast, workerDeaths: 0)]
        h.core.restore(recovery, now: h.at(.zero))
        h.ready(w1, at: .seconds(1))
        // On its side, it is past its deadline: not sent (wrapped round, it would go with the
        // longest timeout), and the next tick answers it `timedOut`.
        #expect(h.requests(to: w1).isEmpty)
        #expect(h.core.awaitsOutcome("ancient"))
        h.tick(at: .seconds(1))
        #expect(!h.core.awaitsOutcome("ancient"))
        #expect(h.requests(to: w1).isEmpty)

        // A timeout past 64-bit nanoseconds (never, in effect) goes as the longest the wire carries.
        let forever = CoordinatorHarness {
            $0.defaultTimeout = .seconds(Int64.max / 2)
            $0.maxTimeout = .seconds(Int64.max / 2)
        }
        forever.perform("forever")
        forever.ready(w1, at: .seconds(1))
        #expect(forever.requests(to: w1).map(\.timeoutMilliseconds) == [UInt32.max])
    }

    @Test func acceptingAndFinishingAreJournaledWithAWallClockDeadline() throws {
        let h = CoordinatorHarness()
        let before = Date()
        let request = h.perform("r", timeoutMilliseconds: 5_000)
        guard let (journaled, deadline) = try #require(h.outbox.journaled.first).acceptance else {
            Issue.record("the first record is not an acceptance: \(h.outbox.journaled)")
            return
        }
        #expect(journaled == request)
        #expect(deadline.timeIntervalSince(before) >= 4.9 && deadline.timeIntervalSince(before) <= 5.5)

        h.ready(w1)
        #expect(h.outbox.journaled.count == 3, "the acceptance, then the actions the new worker made known and the workers' names")
        #expect(h.outbox.journaled.last == .workers(["worker-\(w1)"]))
        h.complete(request, on: w1)
        #expect(h.outbox.journaled.count == 4)
        let outcome = try #require(h.outcome("r"))
        guard case .published(outcome, position: 1, _, finishesRequest: true) = h.outbox.journaled.last else {
            Issue.record("the outcome was not journaled at the stream's first position: \(h.outbox.journaled)")
            return
        }
    }

    @Test func refusedAndDuplicateRequestsAreNotJournaled() {
        let h = CoordinatorHarness { $0.maxQueued = 1 }
        h.perform("kept")
        h.perform("kept")
        h.perform("refused")
        #expect(h.outbox.journaled.count == 1)
        #expect(h.outcome("refused")?.failureCode == BusErrorCode.overloaded)
    }

    @Test func recoveredRequestsRunAgainAndAnswerTheClientThatResends() throws {
        let h = CoordinatorHarness()
        let request = h.request("lost", timeoutMilliseconds: 60_000)
        restore(request, into: h)
        #expect(h.core.statistics.queued == 1)
        #expect(h.core.statistics.recovered == 1)

        h.ready(w1)
        #expect(h.requestIDs(to: w1) == ["lost"])
        // The client's resend finds it running: ACCEPTED now, the outcome when it finishes.
        h.send(.perform(request))
        #expect(h.replies == [.accepted(requestID: "lost")])
        h.complete(request, on: w1)
        #expect(h.outcome("lost")?.isSuccess == true)
        #expect(h.core.statistics.duplicates == 1)
    }

    @Test func recoveredOutcomesAnswerRetriesAndRebuildStacks() throws {
        let h = CoordinatorHarness()
        let outcome = WireOutcome(
            requestID: "done", action: "Documents.open", session: "s1", worker: "w", closeActionStack: false,
            result: .success(contentType: WireRequest.json, output: Array("{}".utf8))
        )
        var recovery = JournalRecovery()
        recovery.finished = [outcome]
        h.core.restore(recovery, now: h.at(.zero))

        h.send(.perform(h.request("done", action: "Documents.open", session: "s1")))
        #expect(h.replies == [.outcome(outcome)])
        h.send(.stacks(queryID: "q", session: "s1"))
        guard case .stacks(_, let json) = try #require(h.replies.last) else {
            Issue.record("no stacks reply")
            return
        }
        #expect(String(decoding: json, as: UTF8.self).contains("Documents.open"))
    }

    @Test func aRecoveredRequestsResultFromAWorkerThatStartedItBeforeTheRestartIsAdopted() throws {
        let h = CoordinatorHarness()
        let request = h.request("inflight", timeoutMilliseconds: 60_000)
        restore(request, into: h)

        // w1 ran it for the previous coordinator and reports before registering again.
        h.complete(request, on: w1)
        guard let outcome = try #require(h.outbox.journaled.last).finishedOutcome else {
            Issue.record("the adopted result was not journaled")
            return
        }
        #expect(outcome.requestID == "inflight" && outcome.isSuccess)
        #expect(h.core.statistics.adoptedResults == 1)
        #expect(h.core.statistics.queued == 0)
        #expect(h.controlInstructions(to: w1) == [.disconnect])

        // Nothing runs it again.
        h.ready(w2)
        #expect(h.requestIDs(to: w2).isEmpty)
        h.send(.perform(request))
        #expect(h.replies == [.outcome(outcome)])
    }

    /// A request recovered from the journal may still run on a worker of the coordinator
    /// before: held for the adoption time, it is adopted where that worker's READY says it
    /// runs, and the others go out once the time is up; a session keeps its order behind it.
    @Test func recoveredRequestsWaitForTheirWorkersReadyAndAreAdoptedThere() throws {
        let h = CoordinatorHarness { $0.adoptionHold = .seconds(3) }
        let running = h.request("running", session: "s", timeoutMilliseconds: 60_000)
        let next = h.request("next", session: "s", timeoutMilliseconds: 60_000)
        let other = h.request("other", timeoutMilliseconds: 60_000)
        var recovery = JournalRecovery()
        recovery.unfinished = [running, next, other].map { RecoveredRequest(request: $0, deadline: Date().addingTimeInterval(60), workerDeaths: 0) }
        h.core.restore(recovery, now: h.at(.zero))

        // A new worker registers first: nothing recovered goes to it yet.
        h.ready(w2, at: .milliseconds(100))
        #expect(h.requestIDs(to: w2).isEmpty)
        // The worker that runs "running" registers saying so: adopted there, and the session's
        // next request follows it to its host.
        h.ready(w1, running: ["running", "unknown"], at: .milliseconds(200))
        #expect(h.core.statistics.adoptedRunning == 1)
        #expect(h.requestIDs(to: w1).isEmpty, "the adopted request is not sent again, and the rest still wait")
        h.tick(at: .seconds(3))
        #expect(h.requestIDs(to: w1) == ["next"], "the session's next request goes to its host, after the adopted one")
        #expect(h.requestIDs(to: w2) == ["other"])
        h.complete(running, on: w1, at: .seconds(4))
        #expect(h.outbox.journaled.last?.finishedOutcome?.requestID == "running", "its result finishes it")
        #expect(h.core.statistics.lateResultsDiscarded == 0 && h.core.statistics.completed == 1)
    }

    /// A worker finished a session's first request and runs its second when the coordinator is
    /// lost, and the first one's RESULT with it. The next coordinator adopts the second where it
    /// runs; the worker's RESENT after WELCOME answers the first, which never runs again: run
    /// again, it would have started after the second.
    @Test func aResentResultAnswersARecoveredRequestSoTheSessionKeepsItsOrder() throws {
        let h = CoordinatorHarness { $0.adoptionHold = .seconds(3) }
        let first = h.request("first", session: "s", timeoutMilliseconds: 60_000)
        let second = h.request("second", session: "s", timeoutMilliseconds: 60_000)
        var recovery = JournalRecovery()
        recovery.unfinished = [first, second].map { RecoveredRequest(request: $0, deadline: Date().addingTimeInterval(60), workerDeaths: 0) }
        h.core.restore(recovery, now: h.at(.zero))

        h.ready(w1, running: ["second"], at: .milliseconds(100))
        #expect(h.core.statistics.adoptedRunning == 1)
        let firstOutcome = WireOutcome(
            requestID: "first", action: first.action, session: "s", worker: "worker-\(w1)", closeActionStack: false,
            result: .success(contentType: WireRequest.json, output: Array(#"{"ran":"once"}"#.utf8))
        )
        h.worker(w1, sends: .resent([firstOutcome]), at: .milliseconds(110))
        #expect(h.core.statistics.adoptedResults == 1 && h.core.statistics.resentResults == 1)
        #expect(h.outbox.journaled.last?.finishedOutcome == firstOutcome, "the resent result finishes it")
        h.tick(at: .seconds(4))
        #expect(h.requestIDs(to: w1).isEmpty, "the first request is not run again after the hold")
        h.complete(second, on: w1, at: .seconds(5))
        #expect(h.core.statistics.completed == 2 && h.core.statistics.queued == 0 && h.core.statistics.lateResultsDiscarded == 0)
        h.send(.perform(first), at: .seconds(6))
        #expect(h.replies.last == .outcome(firstOutcome), "a client asking again gets the resent answer")
    }

    /// RESENT never answers a request that is running now, nor returns a credit: that run's own
    /// RESULT does both.
    @Test func aResentResultForARequestRunningNowIsOnlyCounted() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        let live = h.perform("live", timeoutMilliseconds: 10_000)
        #expect(h.requestIDs(to: w1) == ["live"])
        let stale = WireOutcome(
            requestID: "live", action: live.action, session: live.session, worker: "worker-\(w1)", closeActionStack: false,
            result: .success(contentType: WireRequest.json, output: Array(#"{"stale":true}"#.utf8))
        )
        h.worker(w1, sends: .resent([stale]))
        #expect(h.core.statistics.resentResults == 1 && h.core.statistics.adoptedResults == 0)
        #expect(h.core.statistics.running == 1 && h.outcome("live") == nil)
        h.complete(live, on: w1)
        #expect(h.outcome("live")?.result == .success(contentType: WireRequest.json, output: Array(#"{"ok":true}"#.utf8)))
        #expect(h.core.statistics.completed == 1 && h.core.statistics.lateResultsDiscarded == 0)
    }

    /// Two requests of a session that the coordinator before accepted but never made durable:
    /// a worker ran the first (its result came back as RESENT) and runs the second (its READY
    /// says so). The client's resends are answered by those runs, not run again, whichever
    /// comes first: the worker's word, or the resends (held meanwhile).
    @Test(arguments: [true, false])
    func resendsOfRequestsTheCoordinatorBeforeNeverRecordedAreAnsweredByTheirRuns(workerFirst: Bool) throws {
        let h = CoordinatorHarness { $0.adoptionHold = .seconds(3) }
        // The journal names the worker, and holds one unfinished request: the hold is on.
        var recovery = JournalRecovery()
        let other = h.request("other", timeoutMilliseconds: 60_000)
        recovery.unfinished = [RecoveredRequest(request: other, deadline: Date().addingTimeInterval(60), workerDeaths: 0)]
        recovery.workers = ["worker-\(w1)"]
        h.core.restore(recovery, now: h.at(.zero))
        let first = h.request("first", session: "s", timeoutMilliseconds: 60_000)
        let second = h.request("second", session: "s", timeoutMilliseconds: 60_000)
        let firstRun = WireOutcome(
            requestID: "first", action: first.action, session: "s", worker: "worker-\(w1)", closeActionStack: false,
            result: .success(contentType: WireRequest.json, output: Array(#"{"run":1}"#.utf8))
        )
        func workerSpeaks(at offset: Duration) {
            h.ready(w1, running: ["second"], at: offset)
            h.worker(w1, sends: .resent([firstRun]), at: offset + .milliseconds(5))
        }
        if workerFirst { workerSpeaks(at: .milliseconds(100)) }
        h.send(.perform(first), at: .milliseconds(200))
        h.send(.perform(second), at: .milliseconds(210))
        if !workerFirst { workerSpeaks(at: .milliseconds(300)) }

        #expect(h.outcome("first") == firstRun, "answered by the run the worker made")
        for second in 1...3 { h.worker(w1, sends: .heartbeat, at: .seconds(second)) }
        h.tick(at: .milliseconds(3_100))
        #expect(!h.requestIDs(to: w1).contains("first") && !h.requestIDs(to: w1).contains("second"), "neither runs again")
        h.complete(second, on: w1, at: .milliseconds(3_200))
        #expect(h.outcome("second") != nil, "its run's result answers it")
        let statistics = h.core.statistics
        #expect(statistics.completed == 2 && statistics.lateResultsDiscarded == 0, "\(statistics)")
        #expect(workerFirst ? statistics.orphanRunsAdopted == 2 : statistics.adoptedRunning == 1 && statistics.adoptedResults == 1, "\(statistics)")
    }

    /// The journal names the workers registered before: once each is back (its READY said
    /// what it runs), what the hold kept goes out at once rather than at the end of the hold.
    @Test func theHoldEndsOnceEveryWorkerOfTheCoordinatorBeforeIsBack() throws {
        let h = CoordinatorHarness { $0.adoptionHold = .seconds(6) }
        let waiting = h.request("waiting", timeoutMilliseconds: 60_000)
        var recovery = JournalRecovery()
        recovery.unfinished = [RecoveredRequest(request: waiting, deadline: Date().addingTimeInterval(60), workerDeaths: 0)]
        recovery.workers = ["worker-\(w1)", "worker-\(w2)"]
        h.core.restore(recovery, now: h.at(.zero))
        h.ready(w1, at: .milliseconds(100))
        h.worker(w1, sends: .resent([]), at: .milliseconds(100))
        h.tick(at: .seconds(1))
        #expect(h.requestIDs(to: w1).isEmpty, "one worker of the coordinator before is not back yet")
        h.ready(w2, at: .milliseconds(1_100))
        h.tick(at: .milliseconds(1_400))
        #expect(h.requestIDs(to: w1) + h.requestIDs(to: w2) == [], "w2 registered, but has not ended the results it sends again")
        h.worker(w2, sends: .resent([]), at: .milliseconds(1_500))
        h.tick(at: .milliseconds(1_800))
        #expect(h.requestIDs(to: w1) + h.requestIDs(to: w2) == ["waiting"], "both are back: it goes well before the 6 s")
    }

    @Test func aResultForARequestThatWasNotRecoveredIsStillDiscarded() {
        let h = CoordinatorHarness()
        h.perform("live")
        h.complete(h.request("live"), on: w1)
        #expect(h.core.statistics.lateResultsDiscarded == 1)
        #expect(h.core.statistics.queued == 1)
    }

    @Test func theSnapshotHoldsKeptOutcomesThenUnfinishedRequestsInOrderThenTheStreamsHistory() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        let first = h.perform("first", timeoutMilliseconds: 10_000)
        h.perform("second", timeoutMilliseconds: 10_000)
        h.perform("third", timeoutMilliseconds: 10_000)
        h.complete(first, on: w1)
        let wallNow = Date()
        var snapshot = h.core.journalSnapshot(now: h.at(.seconds(4)), wallNow: wallNow)
        guard case .knownActions(let known) = snapshot.removeFirst() else {
            Issue.record("the snapshot does not start with the known actions: \(snapshot)")
            return
        }
        #expect(Set(known.keys) == Set(CoordinatorHarness.exampleActions))
        #expect(snapshot.removeFirst() == .workers(["worker-\(w1)"]), "then the workers' names")
        #expect(snapshot.count == 5)
        // The stream's history (first's outcome, as history only), then its head.
        #expect(snapshot.suffix(2) == [
            .published(try #require(h.outcome("first")), position: 1, publishedAt: try publishedAt(snapshot[3]), finishesRequest: false),
            .streamHead(1),
        ])
        snapshot.removeLast(2)
        guard case .finished(let outcome) = snapshot[0] else {
            Issue.record("the snapshot does not start with the outcome: \(snapshot)")
            return
        }
        #expect(outcome.requestID == "first")
        let unfinished = snapshot.dropFirst().compactMap { record -> (String, Date)? in
            if case .accepted(let request, let deadline) = record { return (request.requestID, deadline) }
            return nil
        }
        #expect(unfinished.map(\.0) == ["second", "third"])
        // 10 s deadline, 4 s gone: 6 s left on the wall clock.
        #expect(unfinished.allSatisfy { abs($0.1.timeIntervalSince(wallNow) - 6) < 0.01 })
    }

    /// An acceptance is journaled from the bytes the request is held as: on disk it must be
    /// the record `.accepted` of the whole request writes, whatever the request's fields.
    @Test func anAcceptanceIsJournaledAsTheWholeRequestsRecordByteForByte() throws {
        let h = CoordinatorHarness()
        let requests = [
            WireRequest(requestID: "plain", action: "Echo.say", timeoutMilliseconds: 5_000, input: Array(#"{"text":"hi"}"#.utf8)),
            WireRequest(requestID: "in-a-session-with-a-longer-id", action: "Echo.say", session: "s1",
                        timeoutMilliseconds: 0, contentType: "text/plain", input: Array("hi".utf8)),
            WireRequest(requestID: "empty", action: "Echo.say", input: []),
            WireRequest(requestID: "background", action: "Echo.say", session: "bg", input: Array("{}".utf8), userInitiated: false),
        ]
        for request in requests { h.send(.perform(request)) }
        let acceptances = h.outbox.journaled.compactMap { record -> (PackedRequest, Date)? in
            if case .acceptedPacked(let packed, let deadline) = record { return (packed, deadline) }
            return nil
        }
        try #require(acceptances.count == requests.count)
        for (request, (packed, deadline)) in zip(requests, acceptances) {
            var written = JournalSnapshot(), expected = JournalSnapshot()
            written.append(.acceptedPacked(packed, deadline: deadline))
            expected.append(.accepted(request, deadline: deadline))
            #expect(written.bytes == expected.bytes, "\(request.requestID)")
            #expect(JournalRecord.acceptedPacked(packed, deadline: deadline).acceptance?.request == request)
        }
    }

    @Test func theEncodedSnapshotIsTheSnapshotsRecordsByteForByte() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        let first = h.perform("first", timeoutMilliseconds: 10_000)
        h.send(.perform(WireRequest(requestID: "second-with-a-longer-id", action: "Echo.say", session: "s1",
                                    timeoutMilliseconds: 0, contentType: "text/plain", input: Array("hi".utf8))))
        h.send(.perform(WireRequest(requestID: "third", action: "Echo.say", input: [])))
        h.send(.perform(WireRequest(requestID: "fourth", action: "Echo.say", session: "bg", input: [], userInitiated: false)))
        h.complete(first, on: w1)
        let now = h.at(.seconds(2))
        let wallNow = Date()
        var expected = JournalSnapshot()
        for record in h.core.journalSnapshot(now: now, wallNow: wallNow) { expected.append(record) }
        #expect(h.core.encodedJournalSnapshot(now: now, wallNow: wallNow).bytes == expected.bytes)
        // A request that is not user-initiated is journaled with its flags field in both forms.
        #expect(h.core.journalSnapshot(now: now, wallNow: wallNow).compactMap { record -> Bool? in
            if case .accepted(let request, _) = record { return request.userInitiated }
            return nil
        } == [true, true, false])
    }

    @Test func workerDeathsAreJournaledAndCountTowardPoisonAfterARestart() throws {
        let h = CoordinatorHarness { $0.maxDeliveries = 3 }
        h.ready(w1)
        h.perform("fatal", timeoutMilliseconds: 60_000)
        h.tick(at: .seconds(5))   // w1 never heartbeats: it dies holding the request
        #expect(h.outbox.journaled.last == .workerDied(requestID: "fatal"))
        // The snapshot carries the death with the request.
        let snapshot = h.core.journalSnapshot(now: h.at(.seconds(5)))
        #expect(snapshot.filter { $0 == .workerDied(requestID: "fatal") }.count == 1)

        // A restarted coordinator that recovered two deaths poisons it at the third.
        let restarted = CoordinatorHarness { $0.maxDeliveries = 3 }
        restore(h.request("fatal", timeoutMilliseconds: 60_000), into: restarted, workerDeaths: 2)
        restarted.ready(w2)
        #expect(restarted.requestIDs(to: w2) == ["fatal"])
        restarted.tick(at: .seconds(5))
        // Nobody has asked again yet, so it is published and journaled, not sent.
        #expect(restarted.events.first?.outcome.failureCode == BusErrorCode.poisoned)
    }

    private func publishedAt(_ record: JournalRecord) throws -> UInt64 {
        guard case .published(_, _, let publishedAt, _) = record else { throw JournalError("not a published outcome: \(record)") }
        return publishedAt
    }
}
