import ActionCore
import ActionWire
import ActionWorker
import ExampleFeatures
import Foundation
import Testing
import ZeroMQ

/// A real worker over TCP loopback, driven by a hand-written coordinator ROUTER.
///
/// Serialized: each test owns a worker whose I/O thread and action queues compete for the
/// machine's two cores, and every wait below is bounded.
@Suite("Worker", .serialized)
struct WorkerTests {
    static let exampleActions: Set<String> = [
        "Echo.say", "Echo.sayDirect", "Echo.sayTwice", "Clock.sleep", "Math.fibonacci", "Sequence.next", "Sequence.step",
        "Documents.open", "Documents.edit", "Documents.close", "Fault.fail", "Fault.hang", "Fault.crash", "Fault.flaky", "Fault.oversize", "Fault.block", "Labs.preview",
    ]

    // MARK: Registration

    @Test func readyAnnouncesNameCreditsAndEveryExampleAction() async throws {
        try await withWorker(configure: { $0.credits = 7 }) { coordinator, worker in
            // READY is the first thing the coordinator hears, not something after a heartbeat.
            guard case .ready(let registration)? = coordinator.log.first?.message else {
                Issue.record("first message was \(String(describing: coordinator.log.first?.message)), not READY")
                return
            }
            #expect(registration.name == worker.name)
            #expect(registration.name.hasPrefix("test-worker-"))
            #expect(registration.credits == 7)
            #expect(registration.actions.count == Self.exampleActions.count)
            #expect(Set(registration.actions) == Self.exampleActions)
            #expect(await worker.statistics().registrations == 1)
        }
    }

    // MARK: Results

    @Test func aBatchOfDirectActionsRunsOnTheLoopAndAnswersInOrder() async throws {
        try await withWorker { coordinator, worker in
            let requests = (1...50).map { n in
                WireRequest(requestID: "d\(n)", action: "Echo.sayDirect", timeoutMilliseconds: 5_000, input: Array(#"{"text":"\#(n)"}"#.utf8))
            }
            try coordinator.send(.requestBatch(requests))
            var outcomes: [WireOutcome] = []
            for _ in requests { outcomes.append(try coordinator.nextResult()) }
            // Run where they arrive, one after another: their outcomes keep the batch's order.
            #expect(outcomes.map(\.requestID) == requests.map(\.requestID))
            #expect(outcomes.map(\.result) == requests.map { .success(contentType: WireRequest.json, output: $0.input) })
            #expect(await worker.statistics().completed == 50)
        }
    }

    @Test func aTurnsOutcomesPastTheBatchLimitGoInSeveralResultsEachAfterItsRequestsBegan() async throws {
        try await withWorker { coordinator, _ in
            try coordinator.send(.reporting(began: true))
            // Direct actions finish in the turn that starts them: one turn with more outcomes
            // than a RESULT carries, so one goes before the turn ends.
            let requests = (1...(WireBatching.maxRecords + 44)).map { n in
                WireRequest(requestID: "r\(n)", action: "Echo.sayDirect", timeoutMilliseconds: 5_000, input: Array(#"{"text":"\#(n)"}"#.utf8))
            }
            try coordinator.send(.requestBatch(requests))
            var answered: [String] = []
            for _ in requests { answered.append(try coordinator.nextResult().requestID) }
            #expect(answered == requests.map(\.requestID), "each once, in order")
            #expect(coordinator.resultSizes.count >= 2, "\(coordinator.resultSizes)")
            #expect(coordinator.resultSizes.allSatisfy { $0 <= WireBatching.maxRecords }, "\(coordinator.resultSizes)")
            #expect(coordinator.resultSizes.reduce(0, +) == requests.count)
            // A request's BEGAN reaches the coordinator before its outcome, the early RESULT's too.
            var begun: Set<String> = []
            for received in coordinator.log {
                switch received.message {
                case .began(let events): begun.formUnion(events.map(\.requestID))
                case .result(let outcome): #expect(begun.contains(outcome.requestID), "the RESULT of \(outcome.requestID) came before its BEGAN")
                default: break
                }
            }
        }
    }

    @Test func aRequestOverTheWorkersLimitFailsAloneAndTheOthersInItsBatchRun() async throws {
        try await withWorker(configure: { $0.maxMessageBytes = 1_024 }) { coordinator, _ in
            let big = Array(#"{"text":""#.utf8) + [UInt8](repeating: 0x61, count: 2_000) + Array(#""}"#.utf8)
            let requests = [
                WireRequest(requestID: "small-1", action: "Echo.say", timeoutMilliseconds: 5_000, input: Array(#"{"text":"a"}"#.utf8)),
                WireRequest(requestID: "big", action: "Echo.say", timeoutMilliseconds: 5_000, input: big),
                WireRequest(requestID: "small-2", action: "Echo.say", timeoutMilliseconds: 5_000, input: Array(#"{"text":"b"}"#.utf8)),
            ]
            try coordinator.send(.requestBatch(requests))
            var outcomes: [String: WireOutcome] = [:]
            for _ in requests {
                let outcome = try coordinator.nextResult()
                outcomes[outcome.requestID] = outcome
            }
            #expect(outcomes["small-1"]?.isSuccess == true)
            #expect(outcomes["small-2"]?.isSuccess == true)
            guard case .failure(let code, let message)? = outcomes["big"]?.result else {
                Issue.record("the oversize request was not answered with a failure: \(String(describing: outcomes["big"]))")
                return
            }
            #expect(code == BusErrorCode.malformedRequest)
            #expect(message.contains("limit"), "\(message)")
        }
    }

    @Test func echoReturnsItsInputAsJSONWithTheWorkersName() async throws {
        try await withWorker { coordinator, worker in
            let outcome = try coordinator.perform("Echo.say", input: #"{"text":"hi"}"#, session: "echo", requestID: "c1:1")
            #expect(outcome.requestID == "c1:1")
            #expect(outcome.action == "Echo.say")
            #expect(outcome.session == "echo")
            #expect(outcome.worker == worker.name)
            #expect(outcome.closeActionStack == false)
            #expect(outcome.result == .success(contentType: WireRequest.json, output: Array(#"{"text":"hi"}"#.utf8)))
            let statistics = await worker.statistics()
            #expect(statistics.received == 1)
            #expect(statistics.completed == 1)
            #expect(statistics.sessions == 1)
        }
    }

    @Test func emptyInputAndTheDefaultSessionWork() async throws {
        try await withWorker { coordinator, _ in
            let outcome = try coordinator.perform("Math.fibonacci", input: #"{"n":10}"#)
            #expect(outcome.outputText == #"{"value":55}"#)
            #expect(outcome.session == "")
            let next = try coordinator.perform("Sequence.next", input: "")
            #expect(next.isSuccess)
        }
    }

    @Test func clockSleepCompletesAsynchronouslyWithoutHoldingOthersUp() async throws {
        try await withWorker { coordinator, _ in
            let started = ContinuousClock.now
            try coordinator.send(.request(WireRequest(
                requestID: "sleep", action: "Clock.sleep", session: "a", timeoutMilliseconds: 5_000, input: Array(#"{"ms":300}"#.utf8)
            )))
            try coordinator.send(.request(WireRequest(
                requestID: "echo", action: "Echo.say", session: "b", timeoutMilliseconds: 5_000, input: Array(#"{"text":"x"}"#.utf8)
            )))
            let first = try coordinator.nextResult()
            let second = try coordinator.nextResult()
            let elapsed = ContinuousClock.now - started
            #expect(first.requestID == "echo")
            #expect(second.requestID == "sleep")
            #expect(second.outputText == #"{"sleptMs":300}"#)
            #expect(elapsed >= .milliseconds(300))
        }
    }

    @Test func anUnknownActionFailsUnknownAction() async throws {
        try await withWorker { coordinator, worker in
            let outcome = try coordinator.perform("Nope.x")
            #expect(outcome.failureCode == BusErrorCode.unknownAction)
            #expect(outcome.failureMessage?.contains("Nope.x") == true)
            #expect(outcome.worker == worker.name)
        }
    }

    @Test func undecodableInputFailsInvalidInputWithTheDecodersMessage() async throws {
        try await withWorker { coordinator, _ in
            let missing = try coordinator.perform("Echo.say", input: #"{"wrong":1}"#)
            #expect(missing.failureCode == BusErrorCode.invalidInput)
            let message = try #require(missing.failureMessage)
            #expect(message.hasPrefix("Invalid input for Echo.say: "))
            #expect(message.contains("text"))      // the decoder names the missing key

            let garbage = try coordinator.perform("Math.fibonacci", input: "not json")
            #expect(garbage.failureCode == BusErrorCode.invalidInput)
            #expect(garbage.failureMessage?.hasPrefix("Invalid input for Math.fibonacci: ") == true)
        }
    }

    @Test func anUnsupportedContentTypeFailsInvalidInput() async throws {
        try await withWorker { coordinator, worker in
            try coordinator.send(.request(WireRequest(
                requestID: "xml", action: "Echo.say", timeoutMilliseconds: 5_000, contentType: "text/xml", input: Array("<a/>".utf8)
            )))
            let outcome = try coordinator.nextResult()
            #expect(outcome.requestID == "xml")
            #expect(outcome.failureCode == BusErrorCode.invalidInput)
            #expect(outcome.failureMessage?.contains("text/xml") == true)
            #expect(await worker.statistics().running == 0)
        }
    }

    @Test func documentsCloseClosesTheActionStack() async throws {
        try await withWorker { coordinator, _ in
            let session = "doc-\(UUID().uuidString)"
            let open = try coordinator.perform("Documents.open", input: #"{"name":"a"}"#, session: session)
            #expect(open.isSuccess)
            #expect(open.closeActionStack == false)
            let edit = try coordinator.perform("Documents.edit", input: #"{"name":"a","text":"hello"}"#, session: session)
            #expect(edit.outputText == #"{"name":"a","text":"hello"}"#)
            let close = try coordinator.perform("Documents.close", input: #"{"name":"a"}"#, session: session)
            #expect(close.closeActionStack == true)
            #expect(close.outputText == #"{"name":"a","text":"hello"}"#)
            let afterClose = try coordinator.perform("Documents.edit", input: #"{"name":"a","text":"x"}"#, session: session)
            #expect(afterClose.failureCode == "documentNotOpen")
        }
    }

    @Test func aNestedPerformIsReportedWithTheResultAndAnEndedSessionClosesItsStacks() async throws {
        try await withWorker { coordinator, worker in
            let session = "nest-\(UUID().uuidString)"
            try coordinator.send(.request(WireRequest(
                requestID: "twice", action: "Echo.sayTwice", session: session, timeoutMilliseconds: 5_000,
                input: Array(#"{"text":"hi"}"#.utf8), userInitiated: false
            )))
            // Two outcomes come back: the nested Echo.say (first: it finished first), then the request's.
            let first = try coordinator.nextResult()
            let second = try coordinator.nextResult()
            #expect(first.nested && first.action == "Echo.say" && first.session == session)
            #expect(first.requestID.hasSuffix("/1"), "a nested perform has the worker's own id: \(first.requestID)")
            #expect(first.result == .success(contentType: WireRequest.json, output: Array("null".utf8)))
            #expect(!first.userInitiated, "the session is a background one, as its first request said")
            #expect(!second.nested && second.requestID == "twice")
            #expect(second.outputText == #"{"text":"hi hi"}"#)
            #expect(!second.userInitiated)
            #expect(await worker.statistics().nestedPerforms == 1)
            #expect(await worker.statistics().sessions == 1)
            // The coordinator says a client ended it: the idle session is dropped at once.
            try coordinator.send(.endSession(session))
            // Messages are handled in order: once a later request is answered, the end was handled.
            #expect(try coordinator.perform("Echo.sayDirect", input: #"{"text":"after"}"#).isSuccess)
            #expect(await worker.statistics().sessionsEnded == 1)
            #expect(await worker.statistics().sessions == 1, "only the default session the last request made is left")
        }
    }

    @Test func aSessionEndedAndNamedAgainIsMadeAnew() async throws {
        try await withWorker { coordinator, worker in
            let session = "again-\(UUID().uuidString)"
            #expect(try coordinator.perform("Echo.sayDirect", input: #"{"text":"first"}"#, session: session).isSuccess)
            try coordinator.send(.endSession(session))
            // The next request names the session the last one did, which is now dropped: it
            // must get a new one, held by the worker, not the ended one it last used.
            #expect(try coordinator.perform("Echo.sayDirect", input: #"{"text":"second"}"#, session: session).isSuccess)
            #expect(await worker.statistics().sessionsEnded == 1)
            #expect(await worker.statistics().sessions == 1, "the session made anew is held")
        }
    }

    @Test func fleetSwitchesRefuseASwitchedOffFeatureAndTurnOnAConditionalOne() async throws {
        try await withWorker { coordinator, _ in
            // Labs is a conditional feature, off by default: refused until the fleet switches it on.
            #expect(try coordinator.perform("Labs.preview", input: #"{"text":"hi"}"#).failureCode == "featureUnavailable")
            try coordinator.send(.switches(["Labs": .on, "Echo": .off]))
            let preview = try coordinator.perform("Labs.preview", input: #"{"text":"hi"}"#)
            #expect(preview.outputText == #"{"text":"HI"}"#)
            let echo = try coordinator.perform("Echo.say", input: #"{"text":"hi"}"#)
            #expect(echo.failureCode == "featureUnavailable")
            #expect(echo.failureMessage?.contains("switched off across the fleet") == true, "\(echo.failureMessage ?? "")")
            // The whole set replaces the last: with no switch left, each feature's default is back.
            try coordinator.send(.switches([:]))
            #expect(try coordinator.perform("Echo.say", input: #"{"text":"hi"}"#).isSuccess)
            #expect(try coordinator.perform("Labs.preview", input: #"{"text":"hi"}"#).failureCode == "featureUnavailable")
        }
    }

    @Test func beganIsReportedOnlyWhileTheCoordinatorAsksAndBeforeTheResult() async throws {
        try await withWorker { coordinator, _ in
            try coordinator.send(.reporting(began: true))
            try coordinator.send(.request(WireRequest(
                requestID: "b1", action: "Echo.say", session: "s", timeoutMilliseconds: 5_000, input: Array(#"{"text":"hi"}"#.utf8)
            )))
            let began = try coordinator.next("BEGAN") { if case .began = $0 { true } else { false } }
            #expect(began.message == .began([BeganEvent(requestID: "b1", action: "Echo.say", session: "s")]))
            #expect(try coordinator.nextResult().requestID == "b1")
            try coordinator.send(.reporting(began: false))
            #expect(try coordinator.perform("Echo.say", input: #"{"text":"again"}"#).isSuccess)
            let reported = coordinator.log.filter { if case .began = $0.message { true } else { false } }
            #expect(reported.count == 1, "nothing more once the coordinator stopped asking")
        }
    }

    @Test func faultFailFailsActionFailedWithItsMessage() async throws {
        try await withWorker { coordinator, _ in
            let outcome = try coordinator.perform("Fault.fail", input: #"{"message":"boom"}"#)
            #expect(outcome.result == .failure(code: BusErrorCode.actionFailed, message: "boom"))
        }
    }

    @Test func faultHangTimesOutAtTheRequestsDeadline() async throws {
        try await withWorker { coordinator, worker in
            let started = ContinuousClock.now
            let outcome = try coordinator.perform("Fault.hang", timeoutMilliseconds: 200)
            let elapsed = ContinuousClock.now - started
            #expect(outcome.failureCode == BusErrorCode.timedOut)
            #expect(elapsed >= .milliseconds(190))
            #expect(elapsed < .seconds(3))
            #expect(await worker.statistics().running == 0)
        }
    }

    @Test func pipelinedRequestsOfOneSessionRunInOrder() async throws {
        try await withWorker(configure: { $0.credits = 128 }) { coordinator, _ in
            let session = "seq-\(UUID().uuidString)"
            for n in 1...100 {
                try coordinator.send(.request(WireRequest(
                    requestID: "n\(n)", action: "Sequence.next", session: session, timeoutMilliseconds: 10_000, input: []
                )))
            }
            var outcomes: [WireOutcome] = []
            for _ in 1...100 { outcomes.append(try coordinator.nextResult()) }
            #expect(outcomes.map(\.requestID) == (1...100).map { "n\($0)" })
            #expect(outcomes.map(\.outputText) == (1...100).map { #"{"n":\#($0)}"# })
        }
    }

    // MARK: Link

    @Test func malformedInstructionsAreCountedAndTheWorkerKeepsServing() async throws {
        try await withWorker { coordinator, worker in
            try coordinator.sendRaw([Array("garbage".utf8), [0xFF, 0x00]])
            try coordinator.sendRaw([WireHeader.bytes(.result)])                 // a worker command
            try coordinator.sendRaw([Array("ABUS".utf8) + [9, 0x31]])            // another version
            try coordinator.sendRaw([WireHeader.bytes(.request), Array("id".utf8)])  // truncated
            let deadline = ContinuousClock.now + .seconds(5)
            var statistics = await worker.statistics()
            while statistics.malformedMessages < 4, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                statistics = await worker.statistics()
            }
            #expect(statistics.malformedMessages == 4)
            #expect(statistics.received == 0)
            let outcome = try coordinator.perform("Echo.say", input: #"{"text":"still here"}"#)
            #expect(outcome.outputText == #"{"text":"still here"}"#)
        }
    }

    @Test func theWorkerSendsHeartbeats() async throws {
        try await withWorker(configure: { $0.heartbeatInterval = .milliseconds(50) }) { coordinator, _ in
            let started = ContinuousClock.now
            for _ in 1...3 {
                _ = try coordinator.next("HEARTBEAT", timeout: .seconds(2)) { $0.isHeartbeat }
            }
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }

    /// `Fault.block` holds a thread of its concurrent executor each (eight of them, more than
    /// the machine's cores); the heartbeats must not wait for any of those threads.
    @Test func heartbeatsContinueWhileActionsBlockTheirExecutorsThreads() async throws {
        let blocked = 8, blockMilliseconds = 1_500
        try await withWorker(configure: { $0.heartbeatInterval = .milliseconds(50); $0.credits = UInt32(blocked) }) { coordinator, _ in
            let sent = ContinuousClock.now
            for n in 1...blocked {
                try coordinator.send(.request(WireRequest(
                    requestID: "block-\(n)", action: "Fault.block", timeoutMilliseconds: 20_000,
                    input: Array(#"{"ms":\#(blockMilliseconds)}"#.utf8)
                )))
            }
            // Three heartbeats, each before any RESULT and all while every action still blocks.
            for beat in 1...3 {
                let received = try coordinator.next("HEARTBEAT or RESULT", timeout: .seconds(5)) {
                    if case .result = $0 { true } else { $0.isHeartbeat }
                }
                try #require(received.message.isHeartbeat, "heartbeat \(beat) came after a RESULT: the worker stopped heartbeating while its actions blocked")
            }
            let heartbeatsAfter = ContinuousClock.now - sent
            #expect(heartbeatsAfter < .milliseconds(blockMilliseconds / 2), "3 heartbeats took \(heartbeatsAfter)")
            var outcomes: [WireOutcome] = []
            for _ in 1...blocked { outcomes.append(try coordinator.nextResult()) }
            #expect(Set(outcomes.map(\.requestID)) == Set((1...blocked).map { "block-\($0)" }))
            #expect(outcomes.allSatisfy { $0.outputText == #"{"blockedMs":\#(blockMilliseconds)}"# }, "\(outcomes)")
        }
    }

    @Test func disconnectFromTheCoordinatorMakesItRegisterAgain() async throws {
        try await withWorker { coordinator, worker in
            try coordinator.send(.disconnect)
            let again = try coordinator.nextReady()
            #expect(again.registration.name == worker.name)
            #expect(Set(again.registration.actions) == Self.exampleActions)
            #expect(await worker.statistics().registrations == 2)
        }
    }

    @Test func aDrainingWorkerThatRegistersAgainSaysAgainThatItIsDraining() async throws {
        try await withWorker { coordinator, worker in
            // A running request keeps the drain going.
            try coordinator.send(.request(WireRequest(
                requestID: "sleep", action: "Clock.sleep", timeoutMilliseconds: 10_000, input: Array(#"{"ms":1500}"#.utf8)
            )))
            let deadline = ContinuousClock.now + .seconds(10)
            while await worker.statistics().running == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            try #require(await worker.statistics().running > 0, "the request never started")
            let draining = Task { await worker.drain() }
            _ = try coordinator.next("DRAINING") { $0 == .draining }
            // What a coordinator that no longer knows the worker (it restarted) answers.
            try coordinator.send(.disconnect)
            _ = try coordinator.nextReady()
            _ = try coordinator.next("DRAINING after the new READY", timeout: .seconds(5)) { $0 == .draining }
            await draining.value
        }
    }

    @Test func aSilentCoordinatorMakesItReconnectAndRegisterAgain() async throws {
        try await withWorker(configure: { $0.heartbeatInterval = .milliseconds(50); $0.heartbeatLiveness = 3 }) { coordinator, worker in
            coordinator.answersHeartbeats = false
            let first = try #require(coordinator.workerID)
            let again = try coordinator.nextReady()
            // The same identity on the new connection: to the coordinator it is the same worker.
            #expect(again.routingID == first)
            let statistics = await worker.statistics()
            #expect(statistics.reconnects >= 1)
            #expect(statistics.registrations >= 2)
            coordinator.answersHeartbeats = true
            // Its heartbeats went unanswered until now, so under load it may be reconnecting yet
            // again when the request goes: then the send finds no route, and the request goes
            // once it has registered on its next connection.
            var outcome: WireOutcome?
            for _ in 0..<5 where outcome == nil {
                do {
                    outcome = try coordinator.perform("Echo.say", input: #"{"text":"back"}"#)
                } catch let error as ZMQError where error.code == .hostUnreachable {
                    _ = try coordinator.nextReady()
                }
            }
            #expect(outcome?.isSuccess == true)
        }
    }

    @Test func processWideObserversSeeWhatTheWorkerRuns() async throws {
        let session = "observed-\(UUID().uuidString)"
        let observer = SessionObserver(session: session)
        ActionDispatcher.shared.addObserver(observer)
        try await withWorker { coordinator, _ in
            let outcome = try coordinator.perform("Echo.say", input: #"{"text":"seen"}"#, session: session)
            #expect(outcome.isSuccess)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while observer.events.count < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(observer.events.values == ["began Echo.say", "ended Echo.say success"])
    }

    @Test func stopSendsDisconnect() async throws {
        let context = try ZMQContext()
        let coordinator = try FakeCoordinator(context: context)
        defer { coordinator.close() }
        var configuration = WorkerConfiguration()
        configuration.coordinatorEndpoint = coordinator.endpoint
        configuration.name = "stopping"
        let worker = try Worker(
            catalog: ExampleApp.catalog, configuration: configuration, sessionConfiguration: .quiet, context: context, logger: .quiet
        )
        let ready = try coordinator.nextReady()
        #expect(ready.registration.name == "stopping")
        await worker.stop()
        let goodbye = try coordinator.next("DISCONNECT") { $0 == .disconnect }
        #expect(goodbye.routingID == ready.routingID)
        // Stopping twice is harmless; statistics after the stop are empty.
        await worker.stop()
        #expect(await worker.statistics() == WorkerStatistics())
    }
}

/// Records the dispatch events of one session.
private final class SessionObserver: ActionDispatchObserver {
    let session: String
    let events = LockedList()

    init(session: String) { self.session = session }

    func actionWillBegin(_ event: ActionDispatchEvent) {
        if event.sessionName == session { events.append("began \(event.actionName)") }
    }

    func actionDidComplete(_ event: ActionDispatchEvent, outcome: ActionOutcomeSummary) {
        if event.sessionName == session { events.append("ended \(event.actionName) \(outcome)") }
    }
}

/// Strings appended from any thread.
private final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    func append(_ item: String) {
        lock.lock()
        defer { lock.unlock() }
        items.append(item)
    }

    var values: [String] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    var count: Int { values.count }
}
