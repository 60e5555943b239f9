import ActionJournal
import ActionTransport
import Locking
import Logging
import ServiceLifecycle
import ZeroMQ

/// A warm standby: keeps a copy of a leader coordinator's journal, byte for byte, in its own
/// data directory, each commit written and synced before it is acknowledged, so the leader
/// can promise what it accepted survives the loss of its host. A coordinator started on the
/// standby's directory (after the standby stops) resumes everything the leader acknowledged.
///
/// One I/O loop thread owns its one socket (a ROUTER the leader's DEALER connects to) and its
/// journal: a standby has nothing else to do while a sync runs.
public final class Standby: Service, Sendable {
    private let loop: IOLoop<StandbyDriver>
    private let authenticator: ZAPAuthenticator?
    private let fatalErrors: AsyncStream<any Error>
    private let fatalErrorSink: AsyncStream<any Error>.Continuation
    /// The endpoint bound, with the port chosen for `*`.
    public let endpoint: String

    /// Opens the journal in `dataDirectory` and binds `listen`; with `curve` (the coordinator's
    /// keys), as a CURVE server that lets in only a peer holding the coordinator key, so the
    /// journal travels encrypted. `onLeaderSteppingDown` runs (on the standby's thread) when the
    /// leader it copies says it is stepping down.
    ///
    /// - Throws: a ``ActionJournal/JournalError`` when the directory is in use or not a
    ///   journal's; a ``ZMQError`` when the endpoint cannot be bound.
    public init(
        listen: String, dataDirectory: String, context: ZMQContext? = nil, logger: Logger = Logger(label: "actionbus.standby"),
        curve: CurveServerKeys? = nil, onLeaderSteppingDown: @escaping @Sendable () -> Void = {}
    ) throws {
        let context = try context ?? ZMQContext()
        // The ZAP handler must be up before the socket binds, so no handshake slips past it.
        let authenticator = try curve.map { curve in try ZAPAuthenticator(context: context) { curve.decide($0) } }
        let (fatalErrors, fatalErrorSink) = AsyncStream<any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let bound = Locked<String?>(nil)
        do {
            loop = try IOLoop(name: "standby-io", context: context) { runtime in
                let driver = try StandbyDriver(
                    runtime: runtime, listen: listen, dataDirectory: dataDirectory, curve: curve, logger: logger,
                    onFatalError: { fatalErrorSink.yield($0) }, onLeaderSteppingDown: onLeaderSteppingDown
                )
                bound.withLock { $0 = driver.endpoint }
                return driver
            }
        } catch {
            authenticator?.stop()
            throw error
        }
        self.authenticator = authenticator
        self.fatalErrors = fatalErrors
        self.fatalErrorSink = fatalErrorSink
        endpoint = bound.withLock { $0! }
        logger.info("standby listening", metadata: [
            "endpoint.replication": "\(endpoint)", "journal.directory": "\(dataDirectory)", "security": "\(curve == nil ? "plaintext" : "CURVE")",
        ])
    }

    /// Serves until the calling task is cancelled or a graceful shutdown begins.
    ///
    /// - Throws: the ``ActionJournal/JournalError`` that made it stop: a standby that cannot
    ///   write must not acknowledge anything more.
    public func run() async throws {
        let failure = await waitForShutdownOrFatalError(fatalErrors, sink: fatalErrorSink)
        await loop.stop()
        authenticator?.stop()
        if let failure { throw failure }
    }
}
