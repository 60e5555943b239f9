import ActionCoordinator
import ActionJournal
import ActionCore
import ActionWire
import Foundation
import Testing

/// CANCEL, STACKS and the statistics.
@Suite("Coordinator core: cancel, stacks, statistics")
struct CoordinatorClientTests {
    let w1 = WorkerID([0xA1])
    let w2 = WorkerID([0xB2])

    // MARK: Cancel

    @Test func cancellingAQueuedRequestAnswersCancelledAndNeverRunsIt() throws {
        let h = CoordinatorHarness()
        h.perform("q")
        h.send(.cancel(requestID: "q"))
        let outcome = try #require(h.outcome("q"))
        #expect(outcome.failureCode == BusErrorCode.cancelled)
        #expect(h.core.statistics.queued == 0)
        h.ready(w1)
        #expect(h.requests(to: w1).isEmpty)
        // Cancelling again, or performing again, answers from the table.
        h.send(.cancel(requestID: "q"))
        h.perform("q")
        #expect(h.outcomes.filter { $0.requestID == "q" } == [outcome, outcome, outcome])
        #expect(h.requests(to: w1).isEmpty)
    }

    @Test func cancellingARunningRequestTellsTheWorkerAndDiscardsItsResult() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        let running = h.perform("run")
        h.perform("next")
        h.send(.cancel(requestID: "run"))
        #expect(h.outcome("run")?.failureCode == BusErrorCode.cancelled)
        #expect(h.controlInstructions(to: w1) == [.cancel(requestID: "run")])
        #expect(h.core.statistics.running == 0)
        // The worker's credit stays out until it answers.
        #expect(h.requestIDs(to: w1) == ["run"])

        h.complete(running, on: w1)
        #expect(h.outcomes.filter { $0.requestID == "run" }.count == 1)
        #expect(h.core.statistics.lateResultsDiscarded == 1)
        #expect(h.requestIDs(to: w1) == ["run", "next"])
    }

    @Test func cancellingAnUnknownRequestIsAnError() {
        let h = CoordinatorHarness()
        h.send(.cancel(requestID: "nope"))
        guard case .error(let requestID, let code, let message)? = h.replies.last else {
            Issue.record("expected ERROR, got \(h.replies)")
            return
        }
        #expect(requestID == "nope")
        #expect(code == BusErrorCode.unknownRequest)
        #expect(message.contains("nope"))
    }

    // MARK: Ownership

    @Test func anotherClientCannotResendOrCancelARequestOfItsOwnForm() throws {
        let h = CoordinatorHarness { $0.defaultTimeout = .seconds(600) }
        h.ready(w1, credits: 10)
        let a = ClientAddress(routingID: Array("clientA".utf8))
        let b = ClientAddress(routingID: Array("clientB".utf8))
        h.perform("clientA:1", from: a)
        h.perform("clientA:1", from: b)
        #expect(h.outbox.replies.last?.client == b)
        guard case .outcome(let refused)? = h.outbox.replies.last?.reply else { throw StackReplyMissing(replies: h.replies) }
        #expect(refused.failureCode == BusErrorCode.notOwner)
        h.send(.cancel(requestID: "clientA:1"), from: b)
        guard case .error(_, let code, _)? = h.outbox.replies.last?.reply else { throw StackReplyMissing(replies: h.replies) }
        #expect(code == BusErrorCode.notOwner)
        #expect(h.core.statistics.running == 1, "still running: b's cancel was refused")
        // An idempotency key is anyone's to resend without CURVE (a restarted process does).
        h.perform("shared-key", from: a)
        h.perform("shared-key", from: b)
        #expect(h.core.statistics.notOwner == 2)
        #expect(h.core.statistics.duplicates == 1)
        // The owner may cancel.
        h.send(.cancel(requestID: "clientA:1"), from: a)
        #expect(h.outbox.replies.last?.client == a)
        #expect(h.core.statistics.running == 1)
    }

    @Test func underCurveARequestBelongsToTheKeyThatSentIt() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 10)
        let alice = ClientAddress(routingID: [0xA1], curveKey: "alice-key")
        let mallory = ClientAddress(routingID: [0xA1], curveKey: "mallory-key")
        let request = h.perform("order-7", from: alice)
        h.perform("order-7", from: mallory)
        h.complete(request, on: w1)
        h.perform("order-7", from: mallory)
        h.send(.cancel(requestID: "order-7"), from: mallory)
        let toMallory = h.outbox.replies.filter { $0.client == mallory }.map(\.reply)
        #expect(toMallory.count == 3)
        #expect(toMallory.allSatisfy { reply in
            switch reply {
            case .outcome(let outcome): return outcome.failureCode == BusErrorCode.notOwner
            case .error(_, let code, _): return code == BusErrorCode.notOwner
            default: return false
            }
        })
        // Alice's own resend gets her outcome.
        h.perform("order-7", from: alice)
        #expect(h.outbox.replies.last?.client == alice)
        guard case .outcome(let outcome)? = h.outbox.replies.last?.reply else { throw StackReplyMissing(replies: h.replies) }
        #expect(outcome.isSuccess)
    }

    // MARK: Stacks

    private func report(_ h: CoordinatorHarness, queryID: String, session: String = "") throws -> ActionStacksReport {
        h.send(.stacks(queryID: queryID, session: session))
        guard case .stacks(let answeredID, let json)? = h.replies.last else {
            throw StackReplyMissing(replies: h.replies)
        }
        #expect(answeredID == queryID)
        return try ActionStacksReport(jsonData: Data(json))
    }

    struct StackReplyMissing: Error { let replies: [ClientReply] }

    @Test func stacksOfIdleSessionsAreClosedAndCounted() throws {
        let h = CoordinatorHarness { $0.stackIdleTimeout = .seconds(60) }
        h.ready(w1, credits: 10)
        for session in ["a", "b"] {
            h.complete(h.perform("open-\(session)", action: "Documents.open", session: session), on: w1)
        }
        #expect(h.core.statistics.openStacks == 2)
        #expect(h.core.statistics.trackedSessions == 2)
        h.worker(w1, sends: .heartbeat, at: .seconds(30))
        h.complete(h.perform("edit-b", action: "Documents.edit", session: "b", at: .seconds(30)), on: w1, at: .seconds(30))
        h.worker(w1, sends: .heartbeat, at: .seconds(61))
        h.tick(at: .seconds(61))
        // a was idle 61 s: closed; b finished something 31 s ago: kept.
        #expect(try report(h, queryID: "q").stacks.map(\.sessionName) == ["b"])
        #expect(h.core.statistics.idleStacksClosed == 1)
        #expect(h.core.statistics.trackedSessions == 1)
    }

    @Test func endingASessionClosesItsStacksHereAndOnItsWorker() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 10)
        h.complete(h.perform("open-a", action: "Documents.open", session: "a"), on: w1)
        h.complete(h.perform("open-b", action: "Documents.open", session: "b"), on: w1)
        #expect(h.core.statistics.openStacks == 2)

        h.send(.endSession(queryID: "end", session: "a"))
        guard case .stacks(let queryID, let json)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        #expect(queryID == "end")
        let closed = try ActionStacksReport(jsonData: Data(json))
        #expect(closed.stacks.map(\.sessionName) == ["a"], "the reply names what closed")
        #expect(h.controlInstructions(to: w1) == [.endSession("a")], "the hosting worker closes its own")
        #expect(try report(h, queryID: "q").stacks.map(\.sessionName) == ["b"])
        #expect(h.core.statistics.sessionsEnded == 1)
        // Idle, it is unpinned: its next request opens a new stack.
        #expect(h.core.statistics.sessions == 1)
        h.complete(h.perform("edit-a", action: "Documents.edit", session: "a"), on: w1)
        #expect(try report(h, queryID: "q2", session: "a").stacks.first?.entries.count == 1)
        // A session nobody hosts still ends (nothing to close, no worker told).
        h.send(.endSession(queryID: "end2", session: "never"))
        guard case .stacks(_, let none)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        #expect(try ActionStacksReport(jsonData: Data(none)).stacks.isEmpty)
        #expect(h.controlInstructions(to: w1).count == 1)
    }

    @Test func aSessionEndedWhileItsRequestRunsStaysPinned() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 10)
        h.ready(w2, credits: 10)
        let open = h.perform("open", action: "Documents.open", session: "a")
        let host = try #require(h.allRequests.first { $0.request.requestID == "open" }?.worker)
        h.complete(open, on: host)
        let running = h.perform("edit", action: "Documents.edit", session: "a")
        h.send(.endSession(queryID: "end", session: "a"))
        #expect(h.core.statistics.sessions == 1, "its running request keeps it on its worker")
        h.perform("edit-2", action: "Documents.edit", session: "a")
        #expect(h.requestIDs(to: host).suffix(2) == ["edit", "edit-2"])
        h.complete(running, on: host)
    }

    @Test func nestedPerformsJoinTheStacksAndTheStreamButAnswerNoRequest() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        let open = h.perform("open", action: "Documents.open", session: "a")
        var nested = WireOutcome(
            requestID: "w1id/1", action: "Sequence.next", session: "a", worker: "worker-w1", closeActionStack: false,
            result: .success(contentType: WireRequest.json, output: Array("null".utf8))
        )
        nested.nested = true
        nested.userInitiated = false
        h.worker(w1, sends: .result(nested))
        #expect(h.core.statistics.nestedPerforms == 1)
        #expect(h.core.statistics.running == 1, "a nested outcome returns no credit and finishes nothing")
        #expect(h.outcomes.isEmpty, "no client is answered")
        #expect(h.events.map(\.outcome) == [nested, nested], "published under both topics")
        h.complete(open, on: w1)
        // As in process: the nested perform finished first, so its stack is the root and the
        // outer action's opened inside it.
        let stacks = try report(h, queryID: "q", session: "a").stacks
        #expect(stacks.map(\.featureName) == ["Sequence"])
        #expect(stacks.first?.userInitiated == false)
        #expect(stacks.first?.subStacks.map(\.featureName) == ["Documents"])
        #expect(h.core.statistics.completed == 1)
    }

    @Test func aRequestThatIsNotUserInitiatedReachesTheWorkerAndTheStacksSo() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 10)
        var request = h.request("bg", action: "Documents.open", session: "sync")
        request.userInitiated = false
        h.send(.perform(request))
        #expect(h.requests(to: w1).first?.userInitiated == false, "the flag travels to the worker")
        // A coordinator-decided outcome (cancelled) keeps the request's flag.
        h.send(.cancel(requestID: "bg"))
        let outcome = try #require(h.outcome("bg"))
        #expect(outcome.failureCode == "cancelled")
        #expect(!outcome.userInitiated)
        #expect(try report(h, queryID: "q", session: "sync").stacks.first?.userInitiated == false)
        // So does an answer given at once, without accepting it.
        var conflicting = h.request("bg", action: "Documents.edit", session: "sync")
        conflicting.userInitiated = false
        h.send(.perform(conflicting))
        #expect(h.outcomes.last?.userInitiated == false)
    }

    @Test func featureSwitchesGoToEveryWorkerNowAndAsItJoinsAndAreJournaled() throws {
        let h = CoordinatorHarness()
        h.ready(w1, actions: ["Echo.say", "Labs.preview"])
        #expect(h.switches(to: w1) == [[:]], "every READY gets the set, empty or not")

        h.send(.features(queryID: "f1", changes: ["Echo": .off, "Labs": .on]))
        #expect(h.switches(to: w1).last == ["Echo": .off, "Labs": .on])
        #expect(h.outbox.journaled.last == .featureSwitches(["Echo": .off, "Labs": .on]))
        guard case .features(let queryID, let json)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        #expect(queryID == "f1")
        let report = try JSONDecoder().decode(FleetFeaturesReport.self, from: Data(json))
        #expect(report.features.map(\.name) == ["Echo", "Labs"])
        #expect(report.features.map(\.switched) == ["off", "on"])
        #expect(report.features.first?.workers == 1 && report.features.first?.actions == ["Echo.say"])
        #expect(report.switches == ["Echo": "off", "Labs": "on"])

        // A worker that joins later gets them; clearing one sends the rest; an unchanged set is
        // neither journaled nor sent again.
        h.ready(w2, actions: ["Echo.say"])
        #expect(h.switches(to: w2) == [["Echo": .off, "Labs": .on]])
        h.send(.features(queryID: "f2", changes: ["Labs": .cleared]))
        #expect(h.switches(to: w1).last == ["Echo": .off])
        #expect(h.switches(to: w2).last == ["Echo": .off])
        let journaled = h.outbox.journaled.count
        h.send(.features(queryID: "f3", changes: ["Echo": .off]))
        h.send(.features(queryID: "f4", changes: [:]))
        #expect(h.outbox.journaled.count == journaled)
        #expect(h.switches(to: w1).count == 3)
        #expect(h.core.statistics.featureSwitchChanges == 2)
        // The features carry what the workers' catalogs say of them.
        let described = WorkerCatalog(
            features: [.init(name: "Labs", description: "Experiments", parent: nil, conditional: true)],
            actions: [.init(name: "Labs.preview", description: "Answers in capitals", published: false,
                            input: .object(["type": .string("object")]), output: .object(["type": .string("object")]))]
        )
        h.worker(w1, sends: .catalog(json: Array(try JSONEncoder().encode(described))))
        h.worker(w1, sends: .catalog(json: Array("not json".utf8)))
        #expect(h.core.statistics.malformedWorkerMessages == 1, "a catalog that does not decode is counted, the last good one kept")
        h.send(.features(queryID: "f5", changes: [:]))
        guard case .features(_, let describedJSON)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        let labs = try JSONDecoder().decode(FleetFeaturesReport.self, from: Data(describedJSON)).features.first { $0.name == "Labs" }
        #expect(labs?.description == "Experiments" && labs?.conditional == true)
        #expect(labs?.details?.map(\.description) == ["Answers in capitals"])
        // A compaction keeps them, and a restarted coordinator has them back.
        #expect(h.core.journalSnapshot(now: h.at(.zero)).first == .featureSwitches(["Echo": .off]))
        var recovery = JournalRecovery()
        recovery.featureSwitches = ["Echo": .off]
        let restarted = CoordinatorHarness()
        restarted.core.restore(recovery, now: restarted.at(.zero))
        restarted.ready(w1)
        #expect(restarted.switches(to: w1) == [["Echo": .off]])
    }

    @Test func workersAndQueuesAreReportedForPeople() throws {
        let h = CoordinatorHarness()
        h.ready(w1, name: "w1", credits: 2, actions: ["Echo.say", "Documents.open"])
        h.core.registerMajordomoWorker(w2, service: "Legacy.echo", name: "mdp-1", now: h.at(.zero))
        for n in 1...3 { h.perform("e\(n)", action: "Echo.say") }
        h.perform("d1", action: "Documents.open", session: "s1")
        h.worker(w1, sends: .heartbeat, at: .milliseconds(250))

        h.send(.workers(queryID: "w"), at: .milliseconds(1_250))
        guard case .workers("w", let workersJSON)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        let workers = try JSONDecoder().decode(FleetWorkersReport.self, from: Data(workersJSON)).workers
        #expect(workers.map(\.name) == ["mdp-1", "w1"])
        #expect(workers.map(\.protocolName) == ["MDP/0.1", "ABP/5"])
        let first = try #require(workers.last)
        #expect(first.actions == ["Documents.open", "Echo.say"] && first.credits == 2 && first.inFlight == 2)
        #expect(first.lastHeardMs == 1_000 && !first.draining && !first.unreachable)
        #expect(String(decoding: workersJSON, as: UTF8.self).contains(#""protocol":"ABP/5""#))

        h.send(.queues(queryID: "q"))
        guard case .queues("q", let queuesJSON)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        let queues = try JSONDecoder().decode(FleetQueuesReport.self, from: Data(queuesJSON))
        #expect(queues.actions == [
            .init(action: "Documents.open", queued: 1, running: 0, workers: 1),
            .init(action: "Echo.say", queued: 1, running: 2, workers: 1),
            .init(action: "Legacy.echo", queued: 0, running: 0, workers: 1),
        ])
        #expect(queues.sessions == [.init(session: "s1", queued: 1, worker: nil)])
        #expect(queues.queued == 2 && queues.running == 2 && queues.omittedSessions == 0)
    }

    @Test func moreSwitchesThanAWorkerTakesAreRefusedByName() throws {
        let h = CoordinatorHarness()
        h.ready(w1)
        var many: [String: FeatureSwitch] = [:]
        for n in 0..<4_000 { many["F\(n)"] = .off }
        h.send(.features(queryID: "f1", changes: many))
        guard case .features? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        var more: [String: FeatureSwitch] = [:]
        for n in 4_000..<4_200 { more["F\(n)"] = .off }
        h.send(.features(queryID: "f2", changes: more))
        guard case .error("f2", let code, let message)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        #expect(code == BusErrorCode.malformedRequest && message.contains("at most 4096"), "\(message)")
        #expect(h.switches(to: w1).last?.count == 4_000, "the refused change left the set as it was")
    }

    @Test func reportsAreCutToFitInAMessage() throws {
        let h = CoordinatorHarness { $0.maxMessageBytes = 8_192 }
        for n in 1...300 { h.ready(WorkerID([UInt8(n % 256), UInt8(n / 256)]), name: "worker-with-a-long-name-\(n)", actions: ["Echo.say"]) }
        h.send(.workers(queryID: "w"))
        guard case .workers(_, let json)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        #expect(json.count <= 8_192)
        let report = try JSONDecoder().decode(FleetWorkersReport.self, from: Data(json))
        #expect(report.workers.count + (report.omittedWorkers ?? 0) == 300 && report.omittedWorkers ?? 0 > 0)
        for n in 1...400 { h.perform("q\(n)", action: "Unserved.action\(n)") }
        h.send(.queues(queryID: "q"))
        guard case .queues(_, let queuesJSON)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        let queues = try JSONDecoder().decode(FleetQueuesReport.self, from: Data(queuesJSON))
        #expect(queuesJSON.count <= 8_192 && (queues.omittedActions ?? 0) > 0)
        #expect(queues.actions.allSatisfy { $0.queued > 0 }, "the busiest are kept; the idle Echo.say is left out")
    }

    @Test func aStacksReplyAlwaysFitsInAMessage() throws {
        let h = CoordinatorHarness { $0.maxMessageBytes = 16_384 }
        h.ready(w1, credits: 1_000)
        for n in 1...400 {
            h.complete(h.perform("open-\(n)", action: "Documents.open", session: "s\(n)"), on: w1)
        }
        h.send(.stacks(queryID: "all", session: ""))
        guard case .stacks(_, let json)? = h.replies.last else { throw StackReplyMissing(replies: h.replies) }
        #expect(json.count <= 16_384)
        let report = try ActionStacksReport(jsonData: Data(json))
        #expect(!report.stacks.isEmpty)
        #expect(report.stacks.count + (report.omittedStacks ?? 0) == 400)
        #expect(report.stacks.last?.sessionName == "s400", "the newest stacks are the ones kept")
        #expect(report.text.contains("older stacks not shown"))
    }

    @Test func aSessionsDocumentActionsStayOnOneWorkerAndFormOneStack() throws {
        let h = CoordinatorHarness()
        h.ready(w1)
        h.ready(w2)
        let open = h.perform("open", action: "Documents.open", session: "doc")
        let edit = h.perform("edit", action: "Documents.edit", session: "doc")
        let host = h.requests(to: w1).isEmpty ? w2 : w1
        #expect(h.requestIDs(to: host) == ["open", "edit"])
        h.complete(open, on: host)
        h.complete(edit, on: host)
        let stacks = try report(h, queryID: "q1").stacks
        #expect(stacks.count == 1)
        #expect(stacks.first?.sessionName == "doc")
        #expect(stacks.first?.featureName == "Documents")
        #expect(stacks.first?.actionNames == ["Documents.open", "Documents.edit"])
    }

    @Test func aStackSpansWorkersWhenItsSessionMovesAndCloseRemovesIt() throws {
        let h = CoordinatorHarness()
        h.ready(w1)
        let open = h.perform("open", action: "Documents.open", session: "doc")
        #expect(h.requestIDs(to: w1) == ["open"])
        h.complete(open, on: w1)
        h.worker(w1, sends: .disconnect)

        h.ready(w2)
        let edit = h.perform("edit", action: "Documents.edit", session: "doc")
        #expect(h.requestIDs(to: w2) == ["edit"])
        h.complete(edit, on: w2)
        // Another session's stack, to check the session filter.
        let other = h.perform("other", action: "Echo.say", session: "chat")
        h.complete(other, on: w2)

        let all = try report(h, queryID: "all")
        #expect(all.stacks.count == 2)
        let doc = try report(h, queryID: "doc", session: "doc").stacks
        #expect(doc.count == 1)
        #expect(doc.first?.actionNames == ["Documents.open", "Documents.edit"])
        #expect(doc.first?.entries.map(\.outcome) == [.success(), .success()])

        let close = h.perform("close", action: "Documents.close", session: "doc")
        h.complete(close, on: w2, closeActionStack: true)
        #expect(try report(h, queryID: "after", session: "doc").stacks.isEmpty)
        #expect(try report(h, queryID: "rest").stacks.map(\.sessionName) == ["chat"])
    }

    @Test func failuresJoinTheStackAndRequestsWithoutSessionDoNot() throws {
        let h = CoordinatorHarness()
        h.ready(w1)
        let fail = h.perform("f", action: "Documents.edit", session: "doc")
        h.core.received(.result(WireOutcome(
            requestID: fail.requestID, action: fail.action, session: "doc", worker: "w",
            closeActionStack: false, result: .failure(code: "documentNotOpen", message: "no")
        )), from: w1, now: h.t0)
        let plain = h.perform("p", action: "Documents.open")
        h.complete(plain, on: w1)
        let stacks = try report(h, queryID: "q").stacks
        #expect(stacks.count == 1)
        #expect(stacks.first?.entries.map(\.outcome) == [.failure(ActionError.Code("documentNotOpen"))])
    }

    // MARK: Statistics

    @Test func statisticsCountWhatHappened() {
        let h = CoordinatorHarness { $0.maxQueued = 3; $0.heartbeatInterval = .seconds(1); $0.heartbeatLiveness = 3 }
        #expect(h.core.statistics == CoordinatorStatistics())
        h.ready(w1, credits: 1)
        h.ready(w2, credits: 1)
        let a = h.perform("a")
        let b = h.perform("b")
        h.perform("c")
        h.perform("d")                  // overloaded: a and b run, c waits, 3 unfinished
        h.perform("a")                  // duplicate while pending
        var stats = h.core.statistics
        #expect(stats.accepted == 3)
        #expect(stats.overloaded == 1)
        #expect(stats.duplicates == 1)
        #expect(stats.workers == 2)
        #expect(stats.running == 2)
        #expect(stats.queued == 1)

        let aHost = h.requestIDs(to: w1) == ["a"] ? w1 : w2
        let bHost = aHost == w1 ? w2 : w1
        h.worker(bHost, sends: .heartbeat, at: .seconds(3))
        h.complete(a, on: aHost, at: .seconds(3))         // c runs on aHost
        h.tick(at: .seconds(4))                          // aHost heard at 3: alive; bHost at 3: alive
        h.tick(at: .milliseconds(6_500))                 // both silent since 3: expire, b and c requeue
        stats = h.core.statistics
        #expect(stats.completed == 1)                    // a; d's refusal is counted as overloaded only
        #expect(stats.workersExpired == 2)
        #expect(stats.redelivered == 2)
        #expect(stats.workers == 0)
        #expect(stats.queued == 2)
        #expect(stats.running == 0)

        h.complete(b, on: bHost, at: .seconds(7))
        h.core.recordMalformed(fromWorker: true)
        h.core.recordMalformed(fromWorker: false)
        h.core.recordMalformed(fromWorker: false)
        h.core.recordUndeliverableReply()
        h.core.recordStreamOverflow()
        h.core.recordJournalFailure()
        h.core.excuseStall(.seconds(5), now: h.at(.seconds(7)))
        stats = h.core.statistics
        #expect(stats.stalls == 1)
        #expect(stats.lateResultsDiscarded == 1)
        #expect(stats.malformedWorkerMessages == 1)
        #expect(stats.malformedClientMessages == 2)
        #expect(stats.undeliverableReplies == 1)
        #expect(stats.streamOverflows == 1)
        #expect(stats.journalFailures == 1)
    }
}
