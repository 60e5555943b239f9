import ActionBusTestSupport
import ActionClient
import ActionCore
import ActionWire
import ExampleFeatures
import Foundation
import Testing
import ZeroMQ

/// The Swift client library against a bus of real processes.
@Suite("ActionClient", .serialized, .timeLimit(.minutes(2)))
struct ActionClientTests {
    /// The first `count` outcomes of `stream`, or none if they do not all come within `timeout`
    /// (the expectations then show what is missing instead of the test hanging).
    static func first(_ count: Int, of stream: AsyncStream<StreamedOutcome>, within timeout: Duration = .seconds(30)) async -> [StreamedOutcome] {
        // Each outcome as a run of one, read by the batches' reader.
        let (runs, continuation) = AsyncStream<[StreamedOutcome]>.makeStream()
        let forward = Task {
            for await outcome in stream { continuation.yield([outcome]) }
            continuation.finish()
        }
        defer { forward.cancel() }
        return await first(count, ofBatches: runs, within: timeout)
    }

    /// The outcomes of the first batches of `stream` until `count` have come, or what came within `timeout`.
    static func first(_ count: Int, ofBatches stream: AsyncStream<[StreamedOutcome]>, within timeout: Duration = .seconds(30)) async -> [StreamedOutcome] {
        await withTaskGroup(of: [StreamedOutcome]?.self) { group in
            group.addTask {
                var received: [StreamedOutcome] = []
                for await batch in stream {
                    received += batch
                    if received.count >= count { break }
                }
                return received
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }

    func makeClient(_ bus: BusFixture) throws -> ActionClient {
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = bus.clients
        configuration.outcomesEndpoint = bus.outcomes
        return try ActionClient(configuration: configuration)
    }

    @Test func typedPerformsReturnOutputsOrThrowTheFailureCode() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        let client = try makeClient(bus)

        let echoed = try await client.perform(EchoFeature.say, .init(text: "typed"), timeout: .seconds(10))
        #expect(echoed.text == "typed")
        let document = try await client.perform(DocumentsFeature.open, DocumentReference(name: "a"), session: "doc-typed")
        #expect(document.name == "a")
        await #expect(throws: ActionError.self) {
            _ = try await client.perform(FaultFeature.fail, .init(message: "typed failure"))
        }
        do {
            _ = try await client.perform(FaultFeature.fail, .init(message: "typed failure"))
        } catch let error as ActionError {
            #expect(error.code == .actionFailed)
            #expect(error.message == "typed failure")
        }
        await client.close()
    }

    /// A group client's first member takes the connection and never answers (a paused or
    /// deposed leader): the query sent there goes again to the next member, and is answered.
    @Test func aQueryUnansweredByOneMemberIsAskedAgainOfTheNext() async throws {
        let bus = try BusFixture()
        _ = try bus.startCoordinator()
        let context = try ZMQContext()
        let silentMember = try Socket(context, type: .router)
        let silentEndpoint = "tcp://127.0.0.1:\(try freeLoopbackPort())"
        try silentMember.bind(silentEndpoint)
        defer {
            silentMember.close()
            _ = context.terminate()
        }
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = "\(silentEndpoint),\(bus.clients)"
        configuration.heartbeatInterval = .milliseconds(200)
        configuration.defaultTimeout = .seconds(10)
        let client = try ActionClient(configuration: configuration)

        let statistics = try await client.statistics()
        #expect(statistics["accepted"] == 0)
        await client.close()
    }

    @Test func clientsDraw60BitIdsThatDoNotCollide() async throws {
        let bus = try BusFixture()
        let clients = try (0..<50).map { _ in try makeClient(bus) }
        let ids = clients.map(\.clientID)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        #expect(ids.allSatisfy { $0.count == 10 && $0.allSatisfy(alphabet.contains) })
        #expect(Set(ids).count == ids.count)
        #expect(clients[0].makeRequestID() == "\(ids[0]):B")
        #expect(clients[0].makeRequestID() == "\(ids[0]):C")
        for client in clients { await client.close() }
    }

    @Test func callbacksRunOnTheChosenQueue() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        let client = try makeClient(bus)
        let queue = DispatchQueue(label: "caller-chosen")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "caller-chosen")
        let (onQueue, output) = await withCheckedContinuation { continuation in
            client.perform(EchoFeature.say, .init(text: "cb"), completionQueue: queue) { outcome in
                continuation.resume(returning: (DispatchQueue.getSpecific(key: key) == "caller-chosen", outcome.output?.text))
            }
        }
        #expect(onQueue)
        #expect(output == "cb")
        await client.close()
    }

    @Test func callbacksFollowTheOneCompletionQueueRule() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        let client = try makeClient(bus)
        func place(_ completionQueue: DispatchQueue?, isCurrent: @escaping @Sendable () -> Bool) async -> Bool {
            await withCheckedContinuation { continuation in
                client.perform(EchoFeature.say, .init(text: "q"), completionQueue: completionQueue) { _ in
                    continuation.resume(returning: isCurrent())
                }
            }
        }
        #expect(await place(.main) { DispatchQueue.main.isCurrent })
        let privateSerial = DispatchQueue(label: "private-serial")
        #expect(await place(privateSerial) { privateSerial.isCurrent })
        let global = DispatchQueue.global(qos: .utility)
        #expect(await place(global) { global.isCurrent })
        // No queue, and the caller on no operation queue: the client's own callback queue.
        let callbacks = client.callbackQueue
        #expect(await place(nil) { callbacks.isCurrent })
        // Called from an operation queue: back on it.
        let callers = OperationQueue()
        callers.name = "callers-operations"
        let captured = await withCheckedContinuation { continuation in
            callers.addOperation {
                client.perform(EchoFeature.say, .init(text: "q")) { _ in
                    continuation.resume(returning: OperationQueue.current?.name ?? "no operation queue")
                }
            }
        }
        #expect(captured == "callers-operations")
        // The by-name form takes a queue too.
        let byNameQueue = DispatchQueue(label: "by-name")
        let byName = await withCheckedContinuation { continuation in
            client.perform(action: "Echo.say", input: Array(#"{"text":"q"}"#.utf8), completionQueue: byNameQueue) { _ in
                continuation.resume(returning: byNameQueue.isCurrent)
            }
        }
        #expect(byName)
        await client.close()
    }

    @Test func aPresenterGetsTheOutputOnTheChosenQueue() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        let client = try makeClient(bus)
        let queue = DispatchQueue(label: "presenter-queue")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "presenter-queue")
        let shown = await withCheckedContinuation { continuation in
            client.perform(EchoFeature.say, .init(text: "presented"), completionQueue: queue,
                           presenter: ContinuationPresenter(continuation: continuation, key: key))
        }
        #expect(shown == "presented on presenter-queue")
        await client.close()
    }

    @Test func thousandsOfRequestsInFlightOnOneClient() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator, ["--credits", "256"])
        try bus.startWorker("w2", coordinator: coordinator, ["--credits", "256"])
        let client = try makeClient(bus)
        let count = 3000
        let outcomes = try await withThrowingTaskGroup(of: WireOutcome.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await client.perform(action: "Echo.say", input: Array(#"{"text":"\#(index)"}"#.utf8))
                }
            }
            return try await group.reduce(into: [WireOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.count == count)
        #expect(outcomes.allSatisfy { $0.isSuccess })
        #expect(Set(outcomes.map(\.requestID)).count == count)
        await client.close()
    }

    /// A call reusing the id of one in flight fails at once with `duplicateRequest`; the first
    /// keeps its place and gets its own outcome when a worker comes.
    @Test func aCallReusingAnIDInFlightFailsAndTheFirstStillCompletes() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal", "--no-worker-grace", "60"])
        let client = try makeClient(bus)
        // No worker yet: the first call stays in flight.
        let first = Task {
            try await client.perform(action: "Echo.say", input: Array(#"{"text":"first"}"#.utf8), timeout: .seconds(30), requestID: "same")
        }
        try expect(waitUntil { (try? bus.statistics()["accepted"]) == 1 }, "the first request was not accepted")
        let second = await withCheckedContinuation { (continuation: CheckedContinuation<Result<WireOutcome, ActionBusError>, Never>) in
            client.perform(action: "Echo.say", input: Array(#"{"text":"second"}"#.utf8), requestID: "same") { continuation.resume(returning: $0) }
        }
        guard case .failure(let error) = second else {
            Issue.record("a second call with the id of one in flight did not fail: \(second)")
            return
        }
        #expect(error.code == "duplicateRequest", "\(error)")
        try bus.startWorker("w1", coordinator: coordinator)
        let outcome = try await first.value
        #expect(outcome.requestID == "same")
        #expect(outcome.successOutput.map { String(decoding: $0.output, as: UTF8.self) } == #"{"text":"first"}"#, "\(outcome)")
        #expect(try bus.statistics()["accepted"] == 1, "the second call reached the coordinator")
        await client.close()
    }

    /// A request cancelled before it left (waiting for room in the window) never leaves: the
    /// caller gets `cancelled` at once and the coordinator never hears of it.
    @Test func aRequestCancelledBeforeItIsSentNeverLeaves() async throws {
        let bus = try BusFixture()
        _ = try bus.startCoordinator(["--no-journal"])
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = bus.clients
        configuration.maxOutstanding = 1
        let client = try ActionClient(configuration: configuration)
        // No worker serves Clock: the first request holds the window's one place.
        let first = Task { try await client.perform(action: "Clock.sleep", input: Array(#"{"ms":1}"#.utf8), timeout: .seconds(30)) }
        try expect(waitUntil { (try? bus.statistics()["accepted"]) == 1 }, "the first request was not accepted")
        // Both calls are queued to the client's loop from this one thread, so the cancel comes second.
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<WireOutcome, ActionBusError>, Never>) in
            client.perform(action: "Echo.say", input: Array(#"{"text":"never"}"#.utf8), requestID: "waiting") { continuation.resume(returning: $0) }
            client.cancel(requestID: "waiting")
        }
        let outcome = try result.get()
        #expect(outcome.failureCode == BusErrorCode.cancelled, "\(outcome)")
        #expect(try bus.statistics()["accepted"] == 1, "the cancelled request reached the coordinator")
        first.cancel()
        await client.close()
        _ = try? await first.value
    }

    /// Events travel a run of one topic to a message: a subscriber to everything, whose outcomes
    /// come under many topics, still sees them numbered one after another, none missed.
    @Test func eventsOfManyTopicsArriveInTheirNumberedOrder() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        try bus.startWorker("w1", coordinator: coordinator, ["--credits", "128"])
        try bus.startWorker("w2", coordinator: coordinator, ["--credits", "128"])
        let client = try makeClient(bus)
        let everything = try await client.outcomes()
        let sessionS = try await client.outcomes(session: "s")
        let count = 600
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    _ = try await client.perform(
                        action: index % 3 == 0 ? "Echo.sayDirect" : "Echo.say", input: Array(#"{"text":"\#(index)"}"#.utf8),
                        session: index % 2 == 0 ? "s" : "t\(index % 5)"
                    )
                }
            }
            try await group.waitForAll()
        }
        let all = await Self.first(count, of: everything)
        let inS = await Self.first(count / 2, of: sessionS)
        #expect(all.map(\.sequence) == Array(1...UInt64(count)))
        #expect(all.allSatisfy { $0.missed == 0 })
        #expect(Set(all.map(\.outcome.requestID)).count == count)
        #expect(inS.map(\.sequence) == Array(1...UInt64(count / 2)))
        #expect(inS.allSatisfy { $0.outcome.session == "s" && $0.missed == 0 })
        await client.close()
    }

    @Test func outcomeStreamFiltersByActionAndReportsSequence() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)
        let client = try makeClient(bus)
        let stream = try await client.outcomes(action: "Math.fibonacci")
        _ = try await client.perform(action: "Echo.say", input: Array(#"{"text":"ignored"}"#.utf8))
        for n in [10, 20] {
            _ = try await client.perform(action: "Math.fibonacci", input: Array(#"{"n":\#(n)}"#.utf8))
        }
        let received = await Self.first(2, of: stream)
        #expect(received.map(\.outcome.action) == ["Math.fibonacci", "Math.fibonacci"])
        #expect(received.map(\.sequence) == [1, 2])
        #expect(received.allSatisfy { $0.missed == 0 })
        await client.close()
    }

    /// The batched stream carries the same outcomes, numbered the same way, in runs: concurrent
    /// performs finishing together arrive several to a batch.
    @Test func outcomeBatchesCarryEveryOutcomeInOrderInRuns() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal"])
        try bus.startWorker("w1", coordinator: coordinator)
        let client = try makeClient(bus)
        let stream = try await client.outcomeBatches(feature: "Echo")
        let count = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...count {
                group.addTask { _ = try await client.perform(action: "Echo.say", input: Array(#"{"text":"\#(n)"}"#.utf8)) }
            }
            try await group.waitForAll()
        }
        let received = await Self.first(count, ofBatches: stream)
        #expect(received.count == count)
        #expect(received.map(\.sequence) == Array(1...UInt64(count)), "numbered in the feature's scope, without a gap")
        #expect(Set(received.map(\.outcome.requestID)).count == count)
        await client.close()
    }
}

/// Hands what it is given to a continuation, with the queue it was given it on.
private struct ContinuationPresenter: ActionPresenter {
    let continuation: CheckedContinuation<String, Never>
    let key: DispatchSpecificKey<String>

    func present(_ output: SayAction.Output) {
        continuation.resume(returning: "\(output.text) on \(DispatchQueue.getSpecific(key: key) ?? "another queue")")
    }

    func presentFailure(_ error: ActionError) {
        continuation.resume(returning: "failed: \(error)")
    }
}
