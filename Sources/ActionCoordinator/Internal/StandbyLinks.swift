import ActionJournal
import ActionTransport
import Logging
import ZeroMQ

/// The leader's sockets to its standbys, one DEALER each, on their own I/O thread (libzmq
/// sockets are not thread-safe): sends what the journal's thread hands over and passes each
/// standby's answers to ``StandbyReplication``.
final class StandbyLinks: IOLoopDriver {
    /// Messages queued per standby before sends are dropped: a standby that far behind is out
    /// of sync, and what it missed reaches it as a whole journal when it asks (a gap).
    private static let highWaterMark: Int32 = 10_000
    /// How long the last message may take to leave as the leader stops, in milliseconds: the
    /// context's termination waits up to this for a standby that is not there.
    private static let goodbyeLinger: Int32 = 200

    private let sockets: [Socket]
    private var incoming = Multipart()
    private let received: (Int, ReplicationMessage) -> Void

    /// Connects to every standby in `endpoints`, under CURVE with `keys` when given.
    init(runtime: IOLoopRuntime, endpoints: [String], keys: CurveClientKeys?, received: @escaping (Int, ReplicationMessage) -> Void) throws {
        self.received = received
        var sockets: [Socket] = []
        for endpoint in endpoints {
            let socket = try runtime.makeSocket(.dealer)
            try keys?.apply(to: socket)
            try socket.setOption(.sendHighWaterMark, Self.highWaterMark)
            try socket.setOption(.reconnectInterval, 100)
            try socket.setOption(.reconnectIntervalMax, 1_000)
            try socket.connect(endpoint)
            sockets.append(socket)
        }
        self.sockets = sockets
        for (index, socket) in sockets.enumerated() {
            runtime.register(socket) { [unowned self] socket in read(socket, index: index) }
        }
    }

    /// Sends one message to the standbys at `targets`: libzmq copies `payload` once per send.
    func send(header: [UInt8], payload: [UInt8], to targets: [Int]) {
        for index in targets {
            do {
                try sockets[index].send(header, options: [.dontWait, .more])
                try sockets[index].send(payload, options: .dontWait)
            } catch {
                // Queue full (the standby is far behind or gone): it finds the gap and asks for
                // the whole journal; until it has acknowledged, commits wait or it is out of sync.
                continue
            }
        }
    }

    /// Sends a header-only message (a probe) to the standbys at `targets`.
    func send(header: [UInt8], to targets: [Int]) {
        for index in targets {
            try? sockets[index].send(header, options: .dontWait)
        }
    }

    /// Sends `header` (stepping down) to every standby, and gives it a moment to leave as the
    /// sockets close (they close at once otherwise).
    func sayGoodbye(header: [UInt8]) {
        for socket in sockets {
            try? socket.send(header, options: .dontWait)
            try? socket.setOption(.linger, Self.goodbyeLinger)
        }
    }

    private func read(_ socket: Socket, index: Int) {
        for _ in 0..<256 {
            do {
                try socket.receive(into: &incoming, options: .dontWait)
            } catch {
                return
            }
            guard incoming.count == 1 || incoming.count == 2,
                  let message = try? ReplicationMessage.decode(header: incoming[0], payload: incoming.count == 2 ? Array(incoming[1]) : nil)
            else { continue }
            received(index, message)
        }
    }
}
