import ActionCore
import ActionTransport
import Dispatch
import Logging
import ServiceLifecycle
import ZeroMQ

/// An ActionBus worker: hosts ActionSessions for the features it is built with, takes requests
/// from the coordinator and sends back their outcomes.
///
/// ```swift
/// let worker = try Worker(catalog: ActionCatalog(root: MyFeatures.self), configuration: WorkerConfiguration())
/// try await worker.run()   // until the task is cancelled
/// ```
public final class Worker: Service, Sendable {
    private let loop: IOLoop<WorkerDriver>
    /// The worker's name, as outcomes carry it.
    public let name: String
    private let drainGrace: Duration
    /// The context the worker made itself (none was given): it terminates it when it stops.
    private let ownContext: ZMQContext?
    private let logger: Logger

    /// Connects to the coordinator and registers the catalog's actions.
    public init(
        catalog: ActionCatalog,
        configuration: WorkerConfiguration = WorkerConfiguration(),
        sessionConfiguration: ActionSessionConfiguration = ActionSessionConfiguration(),
        context: ZMQContext? = nil,
        logger: Logger = Logger(label: "actionbus.worker")
    ) throws {
        ownContext = context == nil ? try ZMQContext() : nil
        let context = context ?? ownContext!
        name = configuration.name
        drainGrace = configuration.drainGrace
        var logger = logger
        logger[metadataKey: "worker.name"] = "\(configuration.name)"
        let workerLogger = logger
        self.logger = logger
        loop = try IOLoop(name: "worker-io", context: context) { runtime, loop in
            try WorkerDriver(
                runtime: runtime, loop: loop, catalog: catalog, configuration: configuration,
                sessionConfiguration: sessionConfiguration, logger: workerLogger
            )
        }
        logger.info("worker started", metadata: [
            "endpoint": "\(configuration.coordinatorEndpoint)", "worker.credits": "\(configuration.credits)",
            "worker.actions": "\(catalog.actionNames.count)",
        ])
    }

    /// The worker's counters, read on its I/O loop.
    public func statistics() async -> WorkerStatistics {
        await loop.read(WorkerStatistics()) { $0.currentStatistics }
    }

    /// Serves until the calling task is cancelled (or a graceful shutdown begins), then drains: no new work, running requests
    /// finish within the configured grace period, then it leaves.
    public func run() async throws {
        // Until cancelled, or until its ServiceGroup begins a graceful shutdown (SIGTERM).
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
            }
        }
        await drain()
        let final = await statistics()
        await stop()
        logger.notice("worker stopped", metadata: [
            "worker.received": "\(final.received)", "worker.completed": "\(final.completed)",
            "worker.duplicates": "\(final.duplicates)", "worker.reconnects": "\(final.reconnects)",
            "worker.resultsResent": "\(final.resultsResent)", "worker.resultsKept": "\(final.resultsKept)",
        ])
    }

    /// Stops taking new work and waits until running requests finish or the grace period ends.
    public func drain() async {
        let grace = drainGrace
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queued = loop.execute { driver, _ in
                driver.drain(grace: grace) { continuation.resume() }
            }
            if !queued { continuation.resume() }
        }
    }

    /// Tells the coordinator it leaves and closes its socket; a context of its own is then
    /// terminated, which waits (up to the socket's linger) for the DISCONNECT to leave.
    public func stop() async {
        await loop.stop()
        guard let ownContext else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // zmq_ctx_term blocks: not on a cooperative thread.
            DispatchQueue.global().async {
                ownContext.terminate()
                continuation.resume()
            }
        }
    }
}
