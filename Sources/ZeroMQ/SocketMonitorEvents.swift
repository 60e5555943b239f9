import CZeroMQ

/// Connection events a socket monitor reports (`zmq_socket_monitor`).
package struct SocketMonitorEvents: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }
    /// A connection was established (the TCP connection; the handshake may still fail).
    package static let connected = SocketMonitorEvents(rawValue: ZMQ_EVENT_CONNECTED)
    /// A connection was lost: whatever libzmq had written to it and the peer had not read is gone.
    package static let disconnected = SocketMonitorEvents(rawValue: ZMQ_EVENT_DISCONNECTED)
    /// A connection attempt failed (nothing listens there, or the host did not answer) and
    /// will be tried again.
    package static let connectRetried = SocketMonitorEvents(rawValue: ZMQ_EVENT_CONNECT_RETRIED)
    /// The ZMTP handshake with a peer completed.
    package static let handshakeSucceeded = SocketMonitorEvents(rawValue: ZMQ_EVENT_HANDSHAKE_SUCCEEDED)

    /// The event in the first frame of a monitor message (a 16-bit event, then a 32-bit value,
    /// in host order); empty when the frame is not one.
    package init(monitorFrame frame: some Collection<UInt8>) {
        guard frame.count == 6 else { self = []; return }
        let bytes = Array(frame)
        self.init(rawValue: Int32(UInt16(bytes[0]) | UInt16(bytes[1]) << 8))
    }
}

extension Socket {
    /// Reports this socket's `events` on a PAIR socket that connects to `endpoint` (an
    /// `inproc://` address in the same context): two frames per event, see
    /// ``SocketMonitorEvents/init(monitorFrame:)``.
    package func monitor(_ endpoint: String, events: SocketMonitorEvents) throws {
        guard zmq_socket_monitor(handle, endpoint, events.rawValue) == 0 else {
            throw ZMQError.last("zmq_socket_monitor(\(endpoint))")
        }
    }

    /// Stops the monitor, before the socket or its reader is closed. libzmq's I/O thread sends
    /// each event with a blocking send: once nobody reads the monitor any more, a socket that
    /// still reports (a connection being retried while it closes) fills the pipe and the send
    /// blocks that thread for good, and with it every connection of the context. Seen in a
    /// client moving between group members: after some hundred moves it had no connection at all.
    package func stopMonitoring() {
        _ = zmq_socket_monitor(handle, nil, 0)
    }
}
