import CZeroMQ
import Synchronization

/// One ZAP authentication request (ZeroMQ RFC 27) for a connecting peer.
package struct ZAPRequest: Sendable, Hashable {
    /// The `ZMQ_ZAP_DOMAIN` of the socket being connected to.
    package var domain: String
    /// The peer's address, such as `127.0.0.1`.
    package var address: String
    /// `NULL`, `PLAIN` or `CURVE`.
    package var mechanism: String
    /// The peer's CURVE public key in Z85, for the CURVE mechanism.
    package var curvePublicKey: String?
}

/// What a ZAP policy answers.
package enum ZAPDecision: Sendable, Hashable {
    /// Let the peer in, under this user id.
    case allow(userID: String)
    /// Refuse the handshake.
    case deny(reason: String)
}

/// A ZAP handler for one context: a thread that answers libzmq's authentication requests.
///
/// Sockets with `curveServer` (or a `zapDomain`) in the same context ask it about every peer
/// that connects; a denied peer's handshake fails and it can send or receive nothing.
package final class ZAPAuthenticator: Sendable {
    /// The inproc endpoint libzmq sends ZAP requests to.
    package static let endpoint = "inproc://zeromq.zap.01"

    private let loop: IOLoop<Handler>
    private let counts: Counts

    /// Binds the ZAP endpoint in `context` and starts answering with `policy`.
    ///
    /// Start it before the sockets it guards bind, so no handshake slips past it.
    package init(context: ZMQContext, policy: @escaping @Sendable (ZAPRequest) -> ZAPDecision) throws {
        let counts = Counts()
        self.counts = counts
        loop = try IOLoop(name: "zap", context: context) { runtime in
            try Handler(runtime: runtime, policy: policy) { allowed in
                if allowed {
                    counts.allowed.add(1, ordering: .relaxed)
                } else {
                    counts.denied.add(1, ordering: .relaxed)
                }
            }
        }
    }

    /// How many peers were allowed in so far.
    package var allowedCount: Int { counts.allowed.load(ordering: .relaxed) }
    /// How many peers were refused so far.
    package var deniedCount: Int { counts.denied.load(ordering: .relaxed) }

    /// Stops answering; later handshakes on guarded sockets fail.
    package func stop() { loop.stop() }

    private final class Counts: Sendable {
        let allowed = Atomic<Int>(0)
        let denied = Atomic<Int>(0)
    }

    final class Handler: IOLoopDriver {
        private let policy: @Sendable (ZAPRequest) -> ZAPDecision
        private let record: (Bool) -> Void
        private var request = Multipart()
        private var reply = Multipart()

        init(runtime: IOLoopRuntime, policy: @escaping @Sendable (ZAPRequest) -> ZAPDecision, record: @escaping (Bool) -> Void) throws {
            self.policy = policy
            self.record = record
            let socket = try runtime.makeSocket(.rep)
            do {
                try socket.bind(ZAPAuthenticator.endpoint)
            } catch {
                socket.close()
                throw error
            }
            runtime.register(socket) { [unowned self] socket in self.answer(on: socket) }
        }

        private func answer(on socket: Socket) {
            while (try? socket.receive(into: &request, options: .dontWait)) != nil {
                reply.removeAll()
                // RFC 27: version, request id, domain, address, identity, mechanism, credentials...
                guard request.count >= 6, request.string(at: 0) == "1.0" else {
                    reply.append("1.0")
                    reply.append(request.count > 1 ? Array(request[1]) : [])
                    reply.append("500")
                    reply.append("malformed ZAP request")
                    reply.appendEmpty()
                    reply.appendEmpty()
                    try? socket.send(reply, options: .dontWait)
                    continue
                }
                let mechanism = request.string(at: 5)
                var key: String?
                if mechanism == "CURVE", request.count >= 7, request[6].count == 32 {
                    key = try? Z85.encode(Array(request[6]))
                }
                let decision = policy(ZAPRequest(
                    domain: request.string(at: 2),
                    address: request.string(at: 3),
                    mechanism: mechanism,
                    curvePublicKey: key
                ))
                reply.append("1.0")
                reply.append(request[1])
                switch decision {
                case .allow(let userID):
                    reply.append("200")
                    reply.append("OK")
                    reply.append(userID)
                    record(true)
                case .deny(let reason):
                    reply.append("400")
                    reply.append(reason)
                    reply.appendEmpty()
                    record(false)
                }
                reply.appendEmpty()
                try? socket.send(reply, options: .dontWait)
            }
        }
    }
}
