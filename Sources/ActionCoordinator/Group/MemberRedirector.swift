import Locking
import Logging
import ZeroMQ

/// While its member does not lead, answers on the member's clients and workers endpoints: every
/// ActionBus message gets NOT-LEADER, naming the leader's endpoint for that kind of peer when
/// known (``pointTo(_:)``), so a client or worker that tried this member moves on to the leader
/// at once instead of waiting out two heartbeats of silence. A Majordomo client, which knows one
/// broker and has no such answer, has its requests forwarded to the leader's clients endpoint
/// and the replies relayed back; Majordomo workers get no answer (they are counted).
///
/// It has a ZeroMQ context of its own, terminated when it stops: once ``stop()`` returns, the
/// endpoints are free for the coordinator its member starts when it wins.
final class MemberRedirector: Sendable {
    private let context: ZMQContext
    private let authenticator: ZAPAuthenticator?
    private let loop: IOLoop<MemberRedirectorDriver>
    private let logger: Logger
    private let leader: Locked<LeaderEndpoints>

    /// Where the leader serves, as it published it; `nil` while not known.
    struct LeaderEndpoints: Equatable, Sendable {
        var clients: String?
        var workers: String?
    }

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
        let leader = Locked(LeaderEndpoints())
        let deadline = ContinuousClock.now + Self.bindPatience
        while true {
            do {
                loop = try IOLoop(name: "redirector-io", context: context) { [leader] runtime in
                    try MemberRedirectorDriver(runtime: runtime, configuration: configuration, leader: leader)
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
        self.leader = leader
        self.logger = logger
    }

    /// Names `endpoints` in NOT-LEADER answers, and forwards Majordomo clients' requests to the
    /// clients endpoint (while none is known they are not answered).
    func pointTo(_ endpoints: LeaderEndpoints) {
        leader.withLock { $0 = endpoints }
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
