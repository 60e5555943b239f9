import ActionTransport
import Locking
import Logging
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
public final class Coordinator: Sendable {
    private let loop: IOLoop<CoordinatorDriver>
    private let authenticator: ZAPAuthenticator?
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
        // The ZAP handler must be up before the sockets bind, so no handshake slips past it.
        let authenticator = try configuration.curve.map { curve in
            try ZAPAuthenticator(context: context) { curve.decide($0) }
        }
        do {
            loop = try IOLoop(name: "coordinator-io", context: context) { runtime in
                let driver = try CoordinatorDriver(runtime: runtime, configuration: configuration, logger: logger)
                bound.withLock { $0 = driver.endpoints }
                return driver
            }
        } catch {
            authenticator?.stop()
            throw error
        }
        self.authenticator = authenticator
        endpoints = bound.withLock { $0! }
        logger.info("coordinator listening", metadata: [
            "endpoint.clients": "\(endpoints.clients)", "endpoint.workers": "\(endpoints.workers)",
            "endpoint.outcomes": "\(endpoints.outcomes)", "security": "\(configuration.curve == nil ? "plaintext" : "CURVE")",
        ])
    }

    /// The coordinator's counters, read on its I/O loop.
    public func statistics() async -> CoordinatorStatistics {
        await loop.read(CoordinatorStatistics()) { $0.core.statistics }
    }

    /// Serves until the calling task is cancelled, then stops.
    public func run() async throws {
        await loop.runUntilCancelled()
        authenticator?.stop()
    }

    /// Stops serving and closes the sockets.
    public func stop() async {
        await loop.stop()
        authenticator?.stop()
    }
}
