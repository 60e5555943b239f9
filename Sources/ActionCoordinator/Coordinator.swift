import ActionCore
import ActionTransport
import ActionWire
import Locking
import Logging
import ServiceLifecycle
import ZeroMQ

/// The ActionBus coordinator: routes requests from clients to workers, tracks action stacks
/// across all workers and publishes every outcome.
///
/// Everything runs on one I/O loop thread that alone owns the three sockets.
///
/// ```swift
/// let coordinator = try Coordinator(configuration: CoordinatorConfiguration())
/// try await coordinator.run()   // until the task is cancelled
/// ```
///
/// It is a swift-service-lifecycle `Service`: in a `ServiceGroup`, a graceful shutdown (SIGTERM)
/// stops it as cancellation does, committing its journal.
public final class Coordinator: Service, Sendable {
    private let loop: IOLoop<CoordinatorDriver>
    private let authenticator: ZAPAuthenticator?
    /// Yields the error that made the coordinator stop on its own (a failed journal write).
    private let fatalErrors: AsyncStream<any Error>
    private let fatalErrorSink: AsyncStream<any Error>.Continuation
    /// The endpoints bound, with the ports chosen for `*`.
    public let endpoints: CoordinatorEndpoints

    /// Binds the sockets and starts the I/O loop.
    ///
    /// - Throws: ``ZMQError`` when an endpoint cannot be bound (in use, malformed).
    public init(
        configuration: CoordinatorConfiguration,
        context: ZMQContext? = nil,
        logger: Logger = Logger(label: "actionbus.coordinator")
    ) throws {
        let context = try context ?? ZMQContext()
        let bound = Locked<CoordinatorEndpoints?>(nil)
        let (fatalErrors, fatalErrorSink) = AsyncStream<any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // The ZAP handler must be up before the sockets bind, so no handshake slips past it.
        let authenticator = try configuration.curve.map { curve in
            try ZAPAuthenticator(context: context) { curve.decide($0) }
        }
        do {
            loop = try IOLoop(name: "coordinator-io", context: context) { runtime, loop in
                let driver = try CoordinatorDriver(
                    runtime: runtime, loop: loop, configuration: configuration, logger: logger,
                    onFatalError: { fatalErrorSink.yield($0) }
                )
                bound.withLock { $0 = driver.endpoints }
                return driver
            }
        } catch {
            authenticator?.stop()
            throw error
        }
        self.authenticator = authenticator
        self.fatalErrors = fatalErrors
        self.fatalErrorSink = fatalErrorSink
        endpoints = bound.withLock { $0! }
        logger.info("coordinator listening", metadata: [
            "endpoint.clients": "\(endpoints.clients)", "endpoint.workers": "\(endpoints.workers)",
            "endpoint.outcomes": "\(endpoints.outcomes)", "security": "\(configuration.curve == nil ? "plaintext" : "CURVE")",
            "journal": "\(configuration.dataDirectory ?? "off")",
        ])
    }

    /// The coordinator's counters, read on its I/O loop.
    public func statistics() async -> CoordinatorStatistics {
        await loop.read(CoordinatorStatistics()) { $0.core.statistics }
    }

    /// Whether it serves: its journal was recovered and its sockets bound (both before it
    /// exists), and its I/O loop still answers. What a readiness probe asks.
    public func isServing() async -> Bool {
        await loop.read(false) { _ in true }
    }

    /// The registered workers (what `actionbus workers` shows), read on its I/O loop.
    public func workers() async -> FleetWorkersReport {
        await loop.read(FleetWorkersReport(workers: [])) { $0.core.workersReport(now: .now) }
    }

    /// What waits and runs per action (what `actionbus queues` shows), read on its I/O loop.
    public func queues() async -> FleetQueuesReport {
        await loop.read(FleetQueuesReport(actions: [], sessions: [], omittedSessions: 0, queued: 0, running: 0)) {
            $0.core.queuesReport()
        }
    }

    /// The features the workers serve and the fleet-wide switches, as JSON (FEATURES-REPLY's).
    public func featuresJSON() async -> [UInt8] {
        await loop.read(Array("{}".utf8)) { $0.core.featuresJSON() }
    }

    /// The open action stacks, of one session or all.
    public func stacks(session: String? = nil) async -> ActionStacksReport {
        await loop.read(ActionStacksReport(stacks: [])) { $0.core.stacksReport(session: session) }
    }

    /// Every outcome the coordinator publishes from now on (what a subscriber to everything
    /// gets, in process: the dashboard's live tail), keeping the newest `buffer` when the reader
    /// falls behind. Stop iterating to stop it.
    public func outcomeFeed(buffer: Int = 1_000) -> AsyncStream<WireOutcome> {
        let (stream, continuation) = AsyncStream<WireOutcome>.makeStream(bufferingPolicy: .bufferingNewest(buffer))
        let id = Locked<Int?>(nil)
        let loop = self.loop
        continuation.onTermination = { _ in
            loop.execute { driver, _ in if let feed = id.withLock({ $0 }) { driver.removeOutcomeFeed(feed) } }
        }
        if !loop.execute({ driver, _ in id.withLock { $0 = driver.addOutcomeFeed(continuation) } }) {
            continuation.finish()
        }
        return stream
    }

    /// Serves until the calling task is cancelled, or a graceful shutdown of its `ServiceGroup`
    /// begins, then stops (committing the journal).
    ///
    /// - Throws: the ``ActionJournal/JournalError`` that made the coordinator stop on its own:
    ///   a journal it cannot write must not acknowledge anything more.
    public func run() async throws {
        let failure = await waitForShutdownOrFatalError(fatalErrors, sink: fatalErrorSink)
        await loop.stop()
        authenticator?.stop()
        if let failure { throw failure }
    }

    /// Stops serving and closes the sockets.
    public func stop() async {
        await loop.stop()
        authenticator?.stop()
    }
}
