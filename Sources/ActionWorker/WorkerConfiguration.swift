import ActionTransport
import Foundation

/// How a worker connects and how much it runs at once.
///
/// ```swift
/// var configuration = WorkerConfiguration()
/// configuration.credits = 128
/// ```
public struct WorkerConfiguration: Sendable {
    /// The coordinator's workers endpoint, or every member's of a coordinator group,
    /// comma-separated: the worker registers with one at a time and moves along the list to
    /// the leader.
    public var coordinatorEndpoint = "tcp://127.0.0.1:5556"
    /// The name outcomes carry; host and pid by default.
    public var name = WorkerConfiguration.defaultName
    /// How many requests run at once.
    public var credits: UInt32 = 64
    /// How often heartbeats go to the coordinator.
    public var heartbeatInterval: Duration = .seconds(1)
    /// Heartbeat intervals of coordinator silence after which the worker reconnects.
    public var heartbeatLiveness = 3
    /// How long a session with nothing running is kept before it is dropped.
    public var sessionIdleTimeout: Duration = .seconds(300)
    /// How long a stopping worker lets its running requests finish before it leaves anyway
    /// (the coordinator then redelivers what it still held).
    public var drainGrace: Duration = .seconds(30)
    /// The largest message accepted, in bytes.
    public var maxMessageBytes = 1 << 20
    /// How long results are kept after they are sent, to be sent again (RESENT) to the next
    /// coordinator that welcomes this worker: one that took their requests back from its
    /// journal (a group's new leader, or a restarted coordinator) takes them as answers instead
    /// of running the requests a second time. Losing a coordinator is noticed within a lease
    /// and a heartbeat expiry, seconds; `.zero` keeps none.
    public var resendWindow: Duration = .seconds(15)
    /// The most bytes of results kept for ``resendWindow``: the oldest go first.
    public var resendMaxBytes = 16 << 20

    /// CURVE keys, when the coordinator requires CURVE; `nil` for plaintext.
    public var curve: CurveClientKeys?

    /// The defaults: loopback port 5556, 64 credits.
    public init() {}

    /// `host-pid`, unique per process on a machine.
    public static var defaultName: String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }
}
