import Locking
import Logging
import ZeroMQ

/// While its member does not lead, answers on the member's clients and workers endpoints: every
/// ActionBus message gets NOT-LEADER, so a client or worker that tried this member moves on to
/// the next at once instead of waiting out two heartbeats of silence. A Majordomo client, which
/// knows one broker and has no such answer, has its requests forwarded to the leader's clients
/// endpoint (``forwardMajordomo(to:)``) and the replies relayed back; Majordomo workers get no
/// answer (they are counted).
///
/// It has a ZeroMQ context of its own, terminated when it stops: once ``stop()`` returns, the
/// endpoints are free for the coordinator its member starts when it wins.
final class MemberRedirector: Sendable {
    private let context: ZMQContext
    private let authenticator: ZAPAuthenticator?
    private let loop: IOLoop<MemberRedirectorDriver>
    private let logger: Logger
    private let leaderClients: Locked<String?>

    /// How long it tries to bind while the last term's coordinator lets its endpoints go.
    static let bindPatience: Duration = .seconds(2)

    /// Binds the clients and workers endpoints of `configuration` (CURVE as configured).
    ///
    /// - Throws: ``ZMQError`` when an endpoint cannot be bound within ``bindPatience``.
    init(configuration: CoordinatorConfiguration, logger: Logger) async throws {
        let context = try ZMQContext()
        // The ZAP handler must be up before the sockets bind, so no handshake slips past it.
        let authenticator = try configuration.curve.map { curve in
            try ZAPAuthenticator(context: context) { curve.decide($0) }
        }
        let leaderClients = Locked<String?>(nil)
        let deadline = ContinuousClock.now + Self.bindPatience
        while true {
            do {
                loop = try IOLoop(name: "redirector-io", context: context) { [leaderClients] runtime in
                    try MemberRedirectorDriver(runtime: runtime, configuration: configuration, leaderClients: leaderClients)
                }
                break
            } catch let error as ZMQError where error.code == .addressInUse && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
            } catch {
                authenticator?.stop()
                _ = context.terminate()
                throw error
            }
        }
        self.context = context
        self.authenticator = authenticator
        self.leaderClients = leaderClients
        self.logger = logger
    }

    /// Forwards Majordomo clients' requests to `endpoint`, the leader's clients endpoint; `nil`
    /// while no leader's is known (they are not answered then).
    func forwardMajordomo(to endpoint: String?) {
        leaderClients.withLock { $0 = endpoint }
    }

    /// Stops answering and frees the endpoints (the context's termination waits for its
    /// sockets' listeners to close).
    func stop() async {
        let answered = await loop.read(MemberRedirectorDriver.Counts()) { $0.counts }
        await loop.stop()
        authenticator?.stop()
        _ = context.terminate()
        logger.info("stopped answering NOT-LEADER", metadata: [
            "redirector.clients": "\(answered.clients)", "redirector.workers": "\(answered.workers)",
            "redirector.majordomoForwarded": "\(answered.forwarded)", "redirector.majordomoRelayed": "\(answered.relayed)",
            "redirector.unanswered": "\(answered.unanswered)",
        ])
    }
}
