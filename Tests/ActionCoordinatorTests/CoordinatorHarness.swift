import ActionCoordinator
import ActionJournal
import ActionWire
import Foundation
import Logging
import Testing

/// A ``CoordinatorOutbox`` that records everything the core decides.
final class RecordingOutbox: CoordinatorOutbox {
    /// Replies to clients, in order.
    private(set) var replies: [(reply: ClientReply, client: ClientAddress)] = []
    /// What was journaled, less the registered workers' names (journaled as workers come and go).
    var journaledWithoutWorkers: [JournalRecord] {
        journaled.filter { if case .workers = $0 { false } else { true } }
    }
    /// Instructions to workers, in order (including ones to unreachable workers).
    private(set) var instructions: [(instruction: WorkerInstruction, worker: WorkerID)] = []
    /// Outcome-stream messages, in order.
    private(set) var stream: [StreamMessage] = []
    /// Journal records, in order.
    private(set) var journaled: [JournalRecord] = []
    /// Workers whose sends fail, as if their connection were gone.
    var unreachable: Set<WorkerID> = []

    func journal(_ record: @autoclosure () -> JournalRecord) {
        journaled.append(record())
    }

    func send(_ reply: ClientReply, to client: ClientAddress) {
        replies.append((reply, client))
    }

    func send(_ instruction: WorkerInstruction, to worker: WorkerID) -> Bool {
        // The core sends requests packed; tests read them as the worker will decode them.
        switch instruction {
        case .packedRequest(let packed):
            let decoded = try? WorkerInstruction.decode(Self.frames(of: instruction))
            #expect(decoded == .request(packed.request!), "a packed REQUEST decodes as the request")
            instructions.append((.request(packed.request!), worker))
        default:
            instructions.append((instruction, worker))
        }
        return !unreachable.contains(worker)
    }

    private static func frames(of instruction: WorkerInstruction) -> WireFrameList {
        var frames = WireFrameList()
        instruction.encode(into: &frames)
        return frames
    }

    func publish(_ message: StreamMessage) {
        stream.append(message)
    }

    /// Workers whose unsent requests the core withdrew, in order.
    private(set) var withdrawn: [WorkerID] = []
    /// Requests a test says are still waiting to go to a worker (as in the driver's batch).
    var unsent: [WorkerID: [String]] = [:]

    func withdrawRequests(to worker: WorkerID) -> [String] {
        withdrawn.append(worker)
        return unsent.removeValue(forKey: worker) ?? []
    }
}

/// A ``CoordinatorCore`` driven by hand with synthetic instants.
final class CoordinatorHarness {
    static let echo = "Echo.say"
    static let exampleActions = ["Echo.say", "Sequence.next", "Documents.open", "Documents.edit", "Documents.close"]

    let outbox = RecordingOutbox()
    let core: CoordinatorCore
    let configuration: CoordinatorConfiguration
    /// The test's time origin; every input is stamped relative to it.
    let t0 = ContinuousClock.now
    let client = ClientAddress(routingID: [0xC1])
    private var requestNumber = 0

    /// The time of day the core reads: the real one unless a test sets it.
    let wallClock = WallClock()

    init(configure: (inout CoordinatorConfiguration) -> Void = { _ in }) {
        var configuration = CoordinatorConfiguration()
        // Recovered requests go at once unless a test holds them for adoption.
        configuration.adoptionHold = .zero
        configure(&configuration)
        self.configuration = configuration
        var logger = Logger(label: "test.coordinator")
        logger.logLevel = .critical
        let wallClock = wallClock
        core = CoordinatorCore(configuration: configuration, outbox: outbox, logger: logger, wallClock: { wallClock.now })
    }

    func at(_ offset: Duration) -> ContinuousClock.Instant { t0 + offset }

    // MARK: Inputs

    /// A request with a fresh id unless one is given.
    func request(
        _ id: String? = nil, action: String = echo, session: String = "", timeoutMilliseconds: UInt32 = 0,
        input: String = #"{"text":"hi"}"#
    ) -> WireRequest {
        requestNumber += 1
        return WireRequest(
            requestID: id ?? "r\(requestNumber)", action: action, session: session,
            timeoutMilliseconds: timeoutMilliseconds, input: Array(input.utf8)
        )
    }

    @discardableResult
    func perform(
        _ id: String? = nil, action: String = echo, session: String = "", timeoutMilliseconds: UInt32 = 0,
        from client: ClientAddress? = nil, at offset: Duration = .zero
    ) -> WireRequest {
        let request = request(id, action: action, session: session, timeoutMilliseconds: timeoutMilliseconds)
        core.received(.perform(request), from: client ?? self.client, now: at(offset))
        return request
    }

    func send(_ message: ClientMessage, from client: ClientAddress? = nil, at offset: Duration = .zero) {
        core.received(message, from: client ?? self.client, now: at(offset))
    }

    func ready(
        _ worker: WorkerID, name: String? = nil, credits: UInt32 = 10, actions: [String] = exampleActions, running: [String] = [],
        at offset: Duration = .zero
    ) {
        let registration = WorkerRegistration(name: name ?? "worker-\(worker)", credits: credits, actions: actions, running: running)
        core.received(.ready(registration), from: worker, now: at(offset))
    }

    func worker(_ worker: WorkerID, sends message: WorkerMessage, at offset: Duration = .zero) {
        core.received(message, from: worker, now: at(offset))
    }

    /// The worker answers `request` with a success (or the given result).
    func complete(
        _ request: WireRequest, on worker: WorkerID, output: String = #"{"ok":true}"#,
        closeActionStack: Bool = false, at offset: Duration = .zero
    ) {
        let outcome = WireOutcome(
            requestID: request.requestID, action: request.action, session: request.session,
            worker: "worker-\(worker)", closeActionStack: closeActionStack,
            result: .success(contentType: WireRequest.json, output: Array(output.utf8))
        )
        core.received(.result(outcome), from: worker, now: at(offset))
    }

    func tick(at offset: Duration) {
        core.tick(now: at(offset))
    }

    // MARK: Observations

    /// The REQUESTs sent to `worker`, in order.
    func requests(to worker: WorkerID) -> [WireRequest] {
        outbox.instructions.compactMap { entry in
            guard entry.worker == worker, case .request(let request) = entry.instruction else { return nil }
            return request
        }
    }

    /// The ids of the REQUESTs sent to `worker`, in order.
    func requestIDs(to worker: WorkerID) -> [String] { requests(to: worker).map(\.requestID) }

    /// Every REQUEST sent, to any worker.
    var allRequests: [(request: WireRequest, worker: WorkerID)] {
        outbox.instructions.compactMap { entry in
            guard case .request(let request) = entry.instruction else { return nil }
            return (request, entry.worker)
        }
    }

    /// The non-REQUEST instructions sent to `worker`, but the WELCOME, SWITCHES and REPORTING
    /// that answer each READY.
    func controlInstructions(to worker: WorkerID) -> [WorkerInstruction] {
        outbox.instructions.filter { entry in
            switch entry.instruction {
            case .request, .welcome, .switches, .reporting: return false
            default: return entry.worker == worker
            }
        }.map(\.instruction)
    }

    /// The SWITCHES sent to `worker`, in order.
    func switches(to worker: WorkerID) -> [[String: FeatureSwitch]] {
        outbox.instructions.compactMap { entry in
            guard entry.worker == worker, case .switches(let switches) = entry.instruction else { return nil }
            return switches
        }
    }

    /// The WELCOMEs sent to `worker`.
    func welcomes(to worker: WorkerID) -> [WorkerTerms] {
        outbox.instructions.compactMap { entry in
            guard entry.worker == worker, case .welcome(let terms) = entry.instruction else { return nil }
            return terms
        }
    }

    /// Every reply to the default client.
    var replies: [ClientReply] { outbox.replies.filter { $0.client == client }.map(\.reply) }

    /// The OUTCOMEs sent to any client, in order.
    var outcomes: [WireOutcome] {
        outbox.replies.compactMap { entry in
            guard case .outcome(let outcome) = entry.reply else { return nil }
            return outcome
        }
    }

    /// The OUTCOME for `requestID`, if one was sent.
    func outcome(_ requestID: String) -> WireOutcome? { outcomes.first { $0.requestID == requestID } }

    /// The ACCEPTED replies, by request id.
    var acceptedIDs: [String] {
        outbox.replies.flatMap { entry -> [String] in
            guard case .accepted(let requestIDs) = entry.reply else { return [] }
            return requestIDs
        }
    }

    /// The EVENTs published, in order.
    var events: [(topic: [UInt8], sequences: OutcomeSequences, outcome: WireOutcome)] {
        outbox.stream.compactMap { message in
            guard case .event(let topic, let sequences, let outcome) = message else { return nil }
            return (topic, sequences, outcome)
        }
    }
}

extension WireOutcome {
    /// The failure code, or `nil` for a success.
    var failureCode: String? {
        if case .failure(let code, _) = result { return code }
        return nil
    }

    var failureMessage: String? {
        if case .failure(_, let message) = result { return message }
        return nil
    }
}

/// A time of day a test can set (it reads the real one until then).
final class WallClock {
    var fixed: Date?
    var now: Date { fixed ?? Date() }
}
