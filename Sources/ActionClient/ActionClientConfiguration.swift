import ActionTransport

/// Where a client connects and how long it waits.
public struct ActionClientConfiguration: Sendable {
    /// The coordinator's clients endpoint, or every member's of a coordinator group,
    /// comma-separated: the client talks to one at a time and moves along the list to the leader.
    public var coordinatorEndpoint = "tcp://127.0.0.1:5555"
    /// The coordinator's outcomes endpoint, for ``ActionClient/outcomes(feature:action:session:)``;
    /// for a coordinator group every member's, comma-separated (only the leader publishes).
    public var outcomesEndpoint = "tcp://127.0.0.1:5557"
    /// The deadline of a perform that names none.
    public var defaultTimeout: Duration = .seconds(30)
    /// How much longer than a request's own timeout the client waits, so the coordinator's
    /// `timedOut` or `noWorker` answer arrives before the client gives up on its own.
    public var answerGrace: Duration = .seconds(3)
    /// The most requests sent and not yet answered at once; further performs wait in the
    /// client, in order, until outcomes make room. It bounds what the coordinator holds and
    /// owes this client, so its replies always fit the connection's queue.
    public var maxOutstanding = 10_000
    /// While requests are outstanding and the coordinator has said nothing for this long, the
    /// client pings it.
    public var heartbeatInterval: Duration = .seconds(1)
    /// Heartbeat intervals of silence after which the client sends nothing new (only pings) until
    /// the coordinator answers. Sent requests go again (with the same identities, so nothing runs
    /// twice that the coordinator's journal knows of) only if another coordinator instance answers.
    public var heartbeatLiveness = 3
    /// The largest message accepted, in bytes.
    public var maxMessageBytes = 1 << 20

    /// CURVE keys, when the coordinator requires CURVE; `nil` for plaintext.
    public var curve: CurveClientKeys?

    /// The defaults: loopback ports 5555 and 5557.
    public init() {}
}
