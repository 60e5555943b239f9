import ActionCore
import ActionWire
import Dispatch
import Foundation
import Locking
import Logging
import ZeroMQ

/// Performs actions on an ActionBus from another process, and subscribes to outcomes.
///
/// ```swift
/// let client = try ActionClient()
/// let output = try await client.perform(Documents.open, .init(name: "a.txt"), session: "doc-1")
/// ```
///
/// One client carries thousands of requests in flight; every request has an identity (the
/// client's id and a sequence number, or an idempotency key), so a resend after a silent
/// coordinator is answered once.
public final class ActionClient: Sendable {
    private let loop: IOLoop<ClientDriver>
    let configuration: ActionClientConfiguration
    /// This client's id, the first half of its request ids.
    public let clientID: String
    private let sequence = Locked<UInt64>(0)
    /// Where callbacks go when the caller is on no queue the client can name.
    /// The client's serial callback queue: where a typed perform's callback runs when the caller
    /// names no queue and runs in no operation queue (``CallerQueue``'s rule 3).
    public let callbackQueue = DispatchQueue(label: "actionbus.client.callbacks")

    /// Connects to the coordinator (the connection completes in the background).
    public init(
        configuration: ActionClientConfiguration = ActionClientConfiguration(),
        context: ZMQContext? = nil,
        logger: Logger = Logger(label: "actionbus.client")
    ) throws {
        let context = try context ?? ZMQContext()
        self.configuration = configuration
        // 60 random bits, in 10 characters: ids of different clients do not collide, and a
        // request id (`clientID:sequence`) stays a small string (see CompactRequestID).
        let clientID = CompactRequestID.clientID()
        self.clientID = clientID
        loop = try IOLoop(name: "client-io", context: context) { runtime in
            try ClientDriver(runtime: runtime, configuration: configuration, clientID: clientID, logger: logger)
        }
    }

    /// Closes the client; outstanding calls fail with ``ActionBusError/closed``.
    public func close() async {
        await loop.stop()
    }

    /// A fresh request id: `clientID:sequence`, the sequence in base 64 (`A` is 0, `B` 1, `BA` 64).
    public func makeRequestID() -> String {
        let next = sequence.withLock { value -> UInt64 in
            value += 1
            return value
        }
        return CompactRequestID.requestID(clientID: clientID, sequence: next)
    }

    // MARK: Erased performs

    /// Performs `action` with JSON `input` and calls `completion` on `completionQueue` with the
    /// outcome, or with the error that kept it from arriving.
    ///
    /// Without a `completionQueue`, `completion` runs on the client's I/O thread, with no hop
    /// (the one exception to ``CallerQueue``'s rule: this is the form for forwarding and
    /// benchmarks, where a hop per outcome is the cost to avoid). Keep it short there: it runs
    /// on the I/O loop.
    ///
    /// `userInitiated` is Flint's `userInitiatedActions`: pass `false` for work a program does on
    /// its own; the worker's session and the coordinator's action stacks say so.
    public func perform(
        action: String,
        input: [UInt8],
        session: String = "",
        timeout: Duration? = nil,
        requestID: String? = nil,
        userInitiated: Bool = true,
        completionQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (Result<WireOutcome, ActionBusError>) -> Void
    ) {
        if let completionQueue {
            perform(action: action, input: input, session: session, timeout: timeout, requestID: requestID,
                    userInitiated: userInitiated) { result in
                completionQueue.async { completion(result) }
            }
            return
        }
        let timeout = timeout ?? configuration.defaultTimeout
        let request = WireRequest(
            requestID: requestID ?? makeRequestID(), action: action, session: session,
            timeoutMilliseconds: WireRequest.timeoutMilliseconds(timeout),
            input: input, userInitiated: userInitiated
        )
        // Checked here, by the rules the coordinator applies: requests travel several to a
        // PERFORM, and one it cannot read would spoil the others with it.
        if let problem = Self.problem(with: request, maxInputBytes: configuration.maxMessageBytes) {
            completion(.failure(ActionBusError(code: BusErrorCode.malformedRequest, message: problem)))
            return
        }
        let deadline = ContinuousClock.now + timeout + configuration.answerGrace
        // From a completion (on the I/O thread) the call is taken at once, without waking the
        // loop: a caller that starts its next request as each ends costs no extra turn.
        if !loop.executeHereOrQueue({ driver, _ in
            driver.perform(PendingCall(request: request, timeout: timeout, deadline: deadline, deliver: completion))
        }) {
            completion(.failure(.closed))
        }
    }

    /// Why the coordinator would refuse `request`, or `nil`.
    static func problem(with request: WireRequest, maxInputBytes: Int) -> String? {
        do {
            try WireName.check(request.requestID, field: "request id")
            try WireName.check(request.action, field: "action")
            try WireName.check(request.session, field: "session", allowEmpty: true)
        } catch {
            return error.message
        }
        guard WireName.isActionName(request.action) else { return "action name '\(request.action)' is not of the form Feature.action" }
        guard request.input.count <= maxInputBytes else {
            return "the input has \(request.input.count) bytes, limit \(maxInputBytes)"
        }
        return nil
    }

    /// Performs `action` with JSON `input` and returns its outcome (success or failure).
    ///
    /// - Throws: ``ActionBusError`` when no outcome arrived (timeout, refused message, closed).
    public func perform(
        action: String, input: [UInt8], session: String = "", timeout: Duration? = nil, requestID: String? = nil,
        userInitiated: Bool = true
    ) async throws -> WireOutcome {
        try await withCheckedThrowingContinuation { continuation in
            perform(action: action, input: input, session: session, timeout: timeout, requestID: requestID,
                    userInitiated: userInitiated) { result in
                continuation.resume(with: result)
            }
        }
    }

    /// Asks the coordinator to cancel a request this client sent.
    public func cancel(requestID: String) {
        loop.execute { driver, _ in driver.cancel(requestID) }
    }

    // MARK: Typed performs

    /// Performs a typed action and returns its output.
    ///
    /// - Throws: `ActionError` with the failure's code when the action failed, or
    ///   ``ActionBusError`` when no outcome arrived.
    public func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>, _ input: A.Input, session: String = "", timeout: Duration? = nil,
        userInitiated: Bool = true
    ) async throws -> A.Output {
        let body = try JSONEncoder().encode(input)
        let outcome = try await perform(action: binding.fullName, input: Array(body), session: session, timeout: timeout,
                                        userInitiated: userInitiated)
        return try Self.decode(outcome, as: A.Output.self).result.get()
    }

    /// Performs a typed action; `completion` runs on `completionQueue`, or by ``CallerQueue``'s
    /// rule, the same as a session's: the `OperationQueue` the caller runs in, else the
    /// client's own serial callback queue.
    public func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>,
        _ input: A.Input,
        session: String = "",
        timeout: Duration? = nil,
        completionQueue: DispatchQueue? = nil,
        completion: @escaping @Sendable (ActionOutcome<A.Output>) -> Void
    ) {
        let deliver = deliveryTarget(completionQueue)
        let body: Data
        do {
            body = try JSONEncoder().encode(input)
        } catch {
            deliver { completion(.failure(ActionError(code: .invalidInput, message: "could not encode the input: \(error)"))) }
            return
        }
        perform(action: binding.fullName, input: Array(body), session: session, timeout: timeout) { result in
            let outcome: ActionOutcome<A.Output>
            switch result {
            case .success(let wire): outcome = Self.decode(wire, as: A.Output.self)
            case .failure(let error): outcome = .failure(ActionError(code: ActionError.Code(error.code), message: error.message))
            }
            deliver { completion(outcome) }
        }
    }

    /// Performs a typed action and hands its outcome to `presenter` (its output, or the
    /// failure), on `completionQueue` or by default where the caller is, as the callback form
    /// does: Flint's presenter, in the caller's process.
    public func perform<F: Feature, A: Action, P: ActionPresenter>(
        _ binding: ActionBinding<F, A>,
        _ input: A.Input,
        session: String = "",
        timeout: Duration? = nil,
        completionQueue: DispatchQueue? = nil,
        presenter: P
    ) where P.Output == A.Output {
        perform(binding, input, session: session, timeout: timeout, completionQueue: completionQueue) { outcome in
            outcome.present(to: presenter)
        }
    }

    private func deliveryTarget(_ queue: DispatchQueue?) -> @Sendable (@escaping @Sendable () -> Void) -> Void {
        if let queue { return { work in queue.async(execute: work) } }
        if let operationQueue = CallerQueue.current {
            return { work in operationQueue.addOperation(work) }
        }
        let fallback = callbackQueue
        return { work in fallback.async(execute: work) }
    }

    static func decode<Output: Decodable & Sendable>(_ outcome: WireOutcome, as type: Output.Type) -> ActionOutcome<Output> {
        switch outcome.result {
        case .success(_, let output):
            do {
                let value = try JSONDecoder().decode(Output.self, from: Data(output.isEmpty ? Array("{}".utf8) : output))
                return .success(value, closeActionStack: outcome.closeActionStack)
            } catch {
                return .failure(ActionError(code: .invalidOutput, message: "could not decode the output of \(outcome.action): \(error)"),
                                closeActionStack: outcome.closeActionStack)
            }
        case .failure(let code, let message):
            return .failure(ActionError(code: ActionError.Code(code), message: message), closeActionStack: outcome.closeActionStack)
        }
    }

    // MARK: Stacks and outcomes

    /// The coordinator's open action stacks as JSON, for one session or all.
    public func stacksJSON(session: String = "") async throws -> [UInt8] {
        try await query { .stacks(queryID: $0, session: session) }
    }

    /// The coordinator's counters (accepted, completed, redelivered, stream overflows, journal
    /// failures, queue and worker gauges...) as a JSON object.
    public func statisticsJSON() async throws -> [UInt8] {
        try await query { .stats(queryID: $0) }
    }

    /// Sends the query `message(queryID)` makes and returns the JSON it is answered with.
    func query(timeout: Duration? = nil, _ message: @escaping @Sendable (String) -> ClientMessage) async throws -> [UInt8] {
        let queryID = makeRequestID()
        return try await withCheckedThrowingContinuation { continuation in
            let queued = loop.execute { driver, _ in
                driver.query(message(queryID), queryID: queryID, timeout: timeout) { continuation.resume(with: $0) }
            }
            if !queued { continuation.resume(throwing: ActionBusError.closed) }
        }
    }

    /// The coordinator's counters by name.
    public func statistics() async throws -> [String: Int] {
        let json = try await statisticsJSON()
        do {
            return try JSONDecoder().decode([String: Int].self, from: Data(json))
        } catch {
            throw ActionBusError(code: "malformedReply", message: "the coordinator's statistics are not a JSON object of counters: \(error)")
        }
    }

    /// The coordinator's open action stacks, for one session or all.
    public func stacks(session: String = "") async throws -> ActionStacksReport {
        try ActionStacksReport(jsonData: Data(try await stacksJSON(session: session)))
    }

    /// The features the fleet's registered workers serve and the fleet-wide switches, after
    /// applying `changes` (none: only asks). A feature switched ``FeatureSwitch/off`` fails
    /// `featureUnavailable` on every worker, now and as workers join, until it is switched
    /// ``FeatureSwitch/on`` (which also turns on a runtime-switched conditional feature whose
    /// default is off) or ``FeatureSwitch/cleared``. Switches survive a coordinator restart with
    /// its journal.
    public func features(switching changes: [String: FeatureSwitch] = [:]) async throws -> FleetFeaturesReport {
        for feature in changes.keys {
            do {
                try WireName.check(feature, field: "feature")
            } catch {
                throw ActionBusError(code: BusErrorCode.malformedRequest, message: error.message)
            }
            guard !feature.contains(".") else {
                throw ActionBusError(code: BusErrorCode.malformedRequest, message: "'\(feature)' is an action's name; switch its feature")
            }
        }
        return try decodeReport(FleetFeaturesReport.self, try await query { .features(queryID: $0, changes: changes) })
    }

    /// The workers the coordinator has registered: name, protocol, actions, credits, what each
    /// runs, when it was last heard from, whether it drains.
    public func workers() async throws -> FleetWorkersReport {
        try decodeReport(FleetWorkersReport.self, try await query { .workers(queryID: $0) })
    }

    /// What waits and what runs, per action, and the sessions with the most requests waiting.
    public func queues() async throws -> FleetQueuesReport {
        try decodeReport(FleetQueuesReport.self, try await query { .queues(queryID: $0) })
    }

    private func decodeReport<Report: Decodable>(_ type: Report.Type, _ json: [UInt8]) throws -> Report {
        do {
            return try JSONDecoder().decode(Report.self, from: Data(json))
        } catch {
            throw ActionBusError(code: "malformedReply", message: "the coordinator's \(Report.self) does not decode: \(error)")
        }
    }

    /// Ends `session` (Flint's session end, across the bus): the coordinator closes its open
    /// action stacks, and the worker hosting it closes its own. Returns the stacks it closed.
    /// Requests of the session still queued or running record in new stacks when they finish.
    ///
    /// - Throws: ``ActionBusError`` `malformedRequest` for a name the protocol refuses (empty,
    ///   too long, control characters), or when no answer came.
    public func endSession(_ session: String) async throws -> ActionStacksReport {
        do {
            try WireName.check(session, field: "session")
        } catch {
            throw ActionBusError(code: BusErrorCode.malformedRequest, message: error.message)
        }
        return try ActionStacksReport(jsonData: Data(try await query { .endSession(queryID: $0, session: session) }))
    }

    /// Subscribes to the outcome stream, filtered at the socket by feature, action
    /// (`Feature.action`) and session; returns once the coordinator confirmed the subscription,
    /// so every outcome published afterwards is in the sequence.
    ///
    /// Each element carries its sequence number in the filter's scope and how many outcomes
    /// were dropped before it. Stop iterating (or cancel the task) to unsubscribe.
    public func outcomes(
        feature: String? = nil, action: String? = nil, session: String? = nil,
        confirmationTimeout: Duration = .seconds(10)
    ) async throws -> AsyncStream<StreamedOutcome> {
        try await subscribe(
            prefix: OutcomeTopic.prefix(feature: feature, action: action, session: session),
            scope: OutcomeTopic.scope(feature: feature, action: action, session: session),
            confirmationTimeout: confirmationTimeout, sink: SubscriptionSink.outcomes
        )
    }

    /// The same subscription as ``outcomes(feature:action:session:confirmationTimeout:)``, its
    /// outcomes delivered in the runs they arrive in (one array per stream message, up to 256
    /// outcomes, in order): for a reader of a busy stream, one hand-off per run instead of one
    /// per outcome (`actionbus subscribe` spent a third of its CPU on those).
    public func outcomeBatches(
        feature: String? = nil, action: String? = nil, session: String? = nil,
        confirmationTimeout: Duration = .seconds(10)
    ) async throws -> AsyncStream<[StreamedOutcome]> {
        try await subscribe(
            prefix: OutcomeTopic.prefix(feature: feature, action: action, session: session),
            scope: OutcomeTopic.scope(feature: feature, action: action, session: session),
            confirmationTimeout: confirmationTimeout, sink: SubscriptionSink.outcomeBatches
        )
    }

    /// Subscribes to began events (Flint's "will begin": a requested action starting on its
    /// worker), filtered as ``outcomes(feature:action:session:confirmationTimeout:)`` is. They
    /// have topics of their own, so only those who ask get them, and workers report them only
    /// while someone asks. With the outcomes of the same filter they make a session's
    /// timeline. They are not numbered: a missed one still has its (numbered) outcome.
    public func began(
        feature: String? = nil, action: String? = nil, session: String? = nil,
        confirmationTimeout: Duration = .seconds(10)
    ) async throws -> AsyncStream<StreamedBegan> {
        try await subscribe(
            prefix: OutcomeTopic.beganPrefix(feature: feature, action: action, session: session),
            scope: .all, confirmationTimeout: confirmationTimeout, sink: SubscriptionSink.began
        )
    }

    /// Subscribes `prefix` on a SUB socket of its own, feeding a stream made by `sink`, and
    /// returns once the coordinator confirmed it.
    func subscribe<Element: Sendable>(
        prefix: [UInt8], scope: OutcomeSequences.Scope, confirmationTimeout: Duration,
        sink: (AsyncStream<Element>.Continuation) -> SubscriptionSink
    ) async throws -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let subscriptionSink = sink(continuation)
        let subscriptionID = Locked<Int?>(nil)
        let loop = self.loop
        continuation.onTermination = { _ in
            loop.execute { driver, _ in
                if let id = subscriptionID.withLock({ $0 }) { driver.unsubscribe(id) }
            }
        }
        let confirmed: Bool = await withCheckedContinuation { confirmation in
            let queued = loop.execute { driver, _ in
                let id = driver.subscribe(
                    prefix: prefix, scope: scope, confirmationTimeout: confirmationTimeout,
                    sink: subscriptionSink, confirmed: { confirmation.resume(returning: $0) }
                )
                subscriptionID.withLock { $0 = id }
            }
            if !queued { confirmation.resume(returning: false) }
        }
        guard confirmed else {
            continuation.finish()
            throw ActionBusError(code: "notSubscribed", message: "the coordinator did not confirm the subscription within \(confirmationTimeout); is it running at \(configuration.outcomesEndpoint)?")
        }
        return stream
    }
}
