import CZeroMQ

/// A typed libzmq socket option. `Value` is the Swift type the option takes.
///
/// ```swift
/// try socket.setOption(.sendHighWaterMark, 10_000)
/// try socket.setOption(.routerMandatory, true)
/// ```
package struct SocketOption<Value>: Sendable, Hashable {
    /// The `ZMQ_*` option number.
    package let rawValue: Int32

    /// Wraps a `ZMQ_*` option number.
    package init(rawValue: Int32) { self.rawValue = rawValue }
}

extension SocketOption where Value == Int32 {
    /// `ZMQ_SNDHWM`: messages queued per peer before sends block or drop.
    package static var sendHighWaterMark: Self { .init(rawValue: ZMQ_SNDHWM) }
    /// `ZMQ_RCVHWM`: messages queued per peer on the receive side.
    package static var receiveHighWaterMark: Self { .init(rawValue: ZMQ_RCVHWM) }
    /// `ZMQ_LINGER` in milliseconds; sockets made by this wrapper start at 0.
    package static var linger: Self { .init(rawValue: ZMQ_LINGER) }
    /// `ZMQ_HEARTBEAT_IVL` in milliseconds: ZMTP PING interval (0 turns it off).
    package static var heartbeatInterval: Self { .init(rawValue: ZMQ_HEARTBEAT_IVL) }
    /// `ZMQ_HEARTBEAT_TTL` in milliseconds: how long the peer keeps the connection without traffic.
    package static var heartbeatTTL: Self { .init(rawValue: ZMQ_HEARTBEAT_TTL) }
    /// `ZMQ_HEARTBEAT_TIMEOUT` in milliseconds: how long to wait for a PONG.
    package static var heartbeatTimeout: Self { .init(rawValue: ZMQ_HEARTBEAT_TIMEOUT) }
    /// `ZMQ_RECONNECT_IVL` in milliseconds.
    package static var reconnectInterval: Self { .init(rawValue: ZMQ_RECONNECT_IVL) }
    /// `ZMQ_RECONNECT_IVL_MAX` in milliseconds (exponential back-off ceiling).
    package static var reconnectIntervalMax: Self { .init(rawValue: ZMQ_RECONNECT_IVL_MAX) }
    /// `ZMQ_SNDTIMEO` in milliseconds (-1: block forever).
    package static var sendTimeout: Self { .init(rawValue: ZMQ_SNDTIMEO) }
    /// `ZMQ_RCVTIMEO` in milliseconds (-1: block forever).
    package static var receiveTimeout: Self { .init(rawValue: ZMQ_RCVTIMEO) }
    /// `ZMQ_HANDSHAKE_IVL` in milliseconds.
    package static var handshakeInterval: Self { .init(rawValue: ZMQ_HANDSHAKE_IVL) }
    /// `ZMQ_EVENTS` (read only): ``PollEvents`` bits ready now.
    package static var events: Self { .init(rawValue: ZMQ_EVENTS) }
    /// `ZMQ_MECHANISM` (read only): 0 NULL, 1 PLAIN, 2 CURVE.
    package static var mechanism: Self { .init(rawValue: ZMQ_MECHANISM) }
}

extension SocketOption where Value == Int64 {
    /// `ZMQ_MAXMSGSIZE` in bytes: a peer sending a larger frame is disconnected (-1: no limit).
    package static var maxMessageSize: Self { .init(rawValue: ZMQ_MAXMSGSIZE) }
}

extension SocketOption where Value == Bool {
    /// `ZMQ_ROUTER_MANDATORY`: sending to an unknown routing id fails `EHOSTUNREACH`.
    package static var routerMandatory: Self { .init(rawValue: ZMQ_ROUTER_MANDATORY) }
    /// `ZMQ_ROUTER_HANDOVER`: a reconnecting peer with a known routing id takes it over.
    package static var routerHandover: Self { .init(rawValue: ZMQ_ROUTER_HANDOVER) }
    /// `ZMQ_IMMEDIATE`: queue only to completed connections.
    package static var immediate: Self { .init(rawValue: ZMQ_IMMEDIATE) }
    /// `ZMQ_XPUB_VERBOSE`: pass every subscription upstream, not only new ones.
    package static var xpubVerbose: Self { .init(rawValue: ZMQ_XPUB_VERBOSE) }
    /// `ZMQ_XPUB_NODROP`: fail with `EAGAIN` at the HWM instead of dropping.
    package static var xpubNoDrop: Self { .init(rawValue: ZMQ_XPUB_NODROP) }
    /// `ZMQ_CURVE_SERVER`: act as the CURVE server (needs ``curveSecretKey``).
    package static var curveServer: Self { .init(rawValue: ZMQ_CURVE_SERVER) }
    /// `ZMQ_PROBE_ROUTER`: send an empty message on connect, so a ROUTER learns the peer.
    package static var probeRouter: Self { .init(rawValue: ZMQ_PROBE_ROUTER) }
    /// `ZMQ_RCVMORE` (read only): the last frame received has more frames after it.
    package static var receiveMore: Self { .init(rawValue: ZMQ_RCVMORE) }
}

extension SocketOption where Value == [UInt8] {
    /// `ZMQ_ROUTING_ID`: the identity a ROUTER peer sees (1–255 bytes, not starting with 0).
    package static var routingID: Self { .init(rawValue: ZMQ_ROUTING_ID) }
    /// `ZMQ_SUBSCRIBE`: a topic prefix (empty: everything).
    package static var subscribe: Self { .init(rawValue: ZMQ_SUBSCRIBE) }
    /// `ZMQ_UNSUBSCRIBE`: removes a topic prefix.
    package static var unsubscribe: Self { .init(rawValue: ZMQ_UNSUBSCRIBE) }
}

extension SocketOption where Value == String {
    /// `ZMQ_CURVE_PUBLICKEY` as 40 Z85 characters.
    package static var curvePublicKey: Self { .init(rawValue: ZMQ_CURVE_PUBLICKEY) }
    /// `ZMQ_CURVE_SECRETKEY` as 40 Z85 characters.
    package static var curveSecretKey: Self { .init(rawValue: ZMQ_CURVE_SECRETKEY) }
    /// `ZMQ_CURVE_SERVERKEY`: the server's public key, as 40 Z85 characters (clients only).
    package static var curveServerKey: Self { .init(rawValue: ZMQ_CURVE_SERVERKEY) }
    /// `ZMQ_ZAP_DOMAIN`: the domain the ZAP handler sees for this socket.
    package static var zapDomain: Self { .init(rawValue: ZMQ_ZAP_DOMAIN) }
    /// `ZMQ_LAST_ENDPOINT` (read only): the endpoint last bound, with the port a `*` chose.
    package static var lastEndpoint: Self { .init(rawValue: ZMQ_LAST_ENDPOINT) }
}
