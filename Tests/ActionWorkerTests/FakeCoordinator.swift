import ActionCore
import ActionTransport
import ActionWire
import ActionWorker
import ExampleFeatures
import Foundation
import Logging
import Testing
import ZeroMQ

/// The test's side of the workers socket: a ROUTER bound on loopback that reads what a real
/// ``Worker`` sends and answers with hand-made instructions.
///
/// Every receive is bounded by the socket's receive timeout and by an overall deadline.
final class FakeCoordinator {
    struct Received {
        let routingID: [UInt8]
        let message: WorkerMessage
    }

    struct TimedOut: Error, CustomStringConvertible {
        let waitingFor: String
        var seen: [WorkerMessage] = []
        var description: String { "timed out waiting for \(waitingFor); received \(seen)" }
    }

    let context: ZMQContext
    let router: Socket
    let endpoint: String
    /// The routing id of the worker's latest connection.
    private(set) var workerID: [UInt8]?
    /// Everything received, in order, including messages skipped by ``next(_:timeout:where:)``.
    private(set) var log: [Received] = []
    /// The rest of a RESULT batch, not yet handed out.
    private var unbatched: [Received] = []
    /// How many outcomes each RESULT received carried, in order.
    private(set) var resultSizes: [Int] = []
    /// Every READY received, in order.
    var registrations: [WorkerRegistration] {
        log.compactMap { if case .ready(let registration) = $0.message { registration } else { nil } }
    }

    /// Answer every worker HEARTBEAT with one, so the worker never thinks the coordinator is gone.
    var answersHeartbeats = true

    init(context: ZMQContext) throws {
        self.context = context
        router = try Socket(context, type: .router)
        try router.setOption(.receiveTimeout, 200)
        try router.setOption(.sendTimeout, 5000)
        try router.setOption(.routerMandatory, true)
        try router.bind("tcp://127.0.0.1:*")
        endpoint = try router.lastEndpoint
    }

    func close() { router.close() }

    /// Receives one message, or `nil` when none arrives within the socket's receive timeout.
    private func receiveOne() throws -> Received? {
        // A RESULT carrying several outcomes is handed out one outcome at a time.
        if !unbatched.isEmpty { return unbatched.removeFirst() }
        let frames: Multipart
        do {
            frames = try router.receiveBusMessage(envelope: 1)
        } catch let error as ZMQError where error.code == .wouldBlock {
            return nil
        }
        let routingID = Array(frames[0])
        var message = try WorkerMessage.decode(frames, at: 1)
        if case .result = message { resultSizes.append(1) }
        if case .resultBatch(let outcomes) = message {
            resultSizes.append(outcomes.count)
            message = .result(outcomes[0])
            unbatched = outcomes.dropFirst().map { Received(routingID: routingID, message: .result($0)) }
        }
        let received = Received(routingID: routingID, message: message)
        log.append(received)
        log.append(contentsOf: unbatched)
        if case .ready = message { workerID = routingID }
        if workerID == nil { workerID = routingID }
        // A marked heartbeat is answered as a plain one: the fake says nothing is durable
        // unless a test does (``WorkerInstruction/resultsTaken(mark:)``).
        if answersHeartbeats, message.isHeartbeat {
            try? send(.heartbeat, to: routingID)
        }
        return received
    }

    /// The next message matching `predicate`, skipping others, within `timeout`.
    func next(
        _ what: String, timeout: Duration = .seconds(20), where predicate: (WorkerMessage) -> Bool
    ) throws -> Received {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let received = try receiveOne(), predicate(received.message) { return received }
        }
        throw TimedOut(waitingFor: what, seen: log.map(\.message))
    }

    /// The worker's next READY.
    func nextReady(timeout: Duration = .seconds(20)) throws -> (routingID: [UInt8], registration: WorkerRegistration) {
        let received = try next("READY", timeout: timeout) { if case .ready = $0 { true } else { false } }
        guard case .ready(let registration) = received.message else { throw TimedOut(waitingFor: "READY") }
        return (received.routingID, registration)
    }

    /// The next RESULT.
    func nextResult(timeout: Duration = .seconds(20)) throws -> WireOutcome {
        let received = try next("RESULT", timeout: timeout) { if case .result = $0 { true } else { false } }
        guard case .result(let outcome) = received.message else { throw TimedOut(waitingFor: "RESULT") }
        return outcome
    }

    func send(_ instruction: WorkerInstruction, to routingID: [UInt8]? = nil) throws {
        var frames = Multipart()
        frames.append(routingID ?? workerID ?? [])
        instruction.encode(into: &frames)
        try router.send(frames)
    }

    /// Sends raw frames to the worker, for malformed-message tests.
    func sendRaw(_ body: [[UInt8]]) throws {
        var frames = Multipart()
        frames.append(workerID ?? [])
        for frame in body { frames.append(frame) }
        try router.send(frames)
    }

    /// Sends a REQUEST and waits for its RESULT.
    /// What a coordinator that does not know the worker (it restarted) answers, then the
    /// worker's READY, welcomed with `terms`.
    func registerAgain(_ terms: WorkerTerms) throws {
        try send(.disconnect)
        _ = try nextReady()
        try send(.welcome(terms))
    }

    func perform(
        _ action: String, input: String = "{}", session: String = "", timeoutMilliseconds: UInt32 = 5_000,
        requestID: String = UUID().uuidString
    ) throws -> WireOutcome {
        try send(.request(WireRequest(
            requestID: requestID, action: action, session: session,
            timeoutMilliseconds: timeoutMilliseconds, input: Array(input.utf8)
        )))
        let outcome = try nextResult()
        #expect(outcome.requestID == requestID)
        return outcome
    }
}

/// Runs `body` with a real worker connected to a ``FakeCoordinator``, after its first READY,
/// and always stops both.
func withWorker(
    configure: (inout WorkerConfiguration) -> Void = { _ in },
    _ body: (FakeCoordinator, Worker) async throws -> Void
) async throws {
    let context = try ZMQContext()
    let coordinator = try FakeCoordinator(context: context)
    var configuration = WorkerConfiguration()
    configuration.coordinatorEndpoint = coordinator.endpoint
    configuration.name = "test-worker-\(UUID().uuidString.prefix(8))"
    configuration.credits = 16
    // Tests answer heartbeats; a long liveness keeps a slow machine from reconnecting mid-test.
    configuration.heartbeatLiveness = 30
    configure(&configuration)
    let worker = try Worker(
        catalog: ExampleApp.catalog, configuration: configuration, sessionConfiguration: .quiet, context: context, logger: .quiet
    )
    do {
        _ = try coordinator.nextReady()
        try await body(coordinator, worker)
    } catch {
        await worker.stop()
        coordinator.close()
        throw error
    }
    await worker.stop()
    coordinator.close()
}

extension Logger {
    /// A logger that keeps test output clean (the failures tests provoke are logged at notice).
    static var quiet: Logger {
        var logger = Logger(label: "test.worker")
        logger.logLevel = .critical
        return logger
    }
}

extension ActionSessionConfiguration {
    static var quiet: ActionSessionConfiguration {
        var configuration = ActionSessionConfiguration()
        configuration.logger = .quiet
        return configuration
    }
}

extension WireOutcome {
    var failureCode: String? {
        if case .failure(let code, _) = result { return code }
        return nil
    }

    var failureMessage: String? {
        if case .failure(_, let message) = result { return message }
        return nil
    }

    /// The output as text, for a success.
    var outputText: String? {
        if case .success(_, let output) = result { return String(decoding: output, as: UTF8.self) }
        return nil
    }
}

extension WorkerMessage {
    /// A HEARTBEAT, marked or not (a worker that keeps results to send again marks them).
    var isHeartbeat: Bool {
        if case .markedHeartbeat = self { return true }
        return self == .heartbeat
    }
}
