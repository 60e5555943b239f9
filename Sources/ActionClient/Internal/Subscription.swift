import ActionWire
import ZeroMQ

/// One SUB socket of an ``ActionClient`` and the stream it feeds.
final class Subscription {
    let socket: Socket
    let prefix: [UInt8]
    let scope: OutcomeSequences.Scope
    let sink: SubscriptionSink
    /// Called once: `true` when SUBSCRIBED arrives, `false` when it did not in time.
    var confirmed: (@Sendable (Bool) -> Void)?
    var lastSequence: UInt64?
    /// The coordinator instance that confirmed the subscription.
    var coordinatorInstance: String?
    /// A SUBSCRIBED came from another instance: the next outcome says so.
    var restartPending = false

    init(socket: Socket, prefix: [UInt8], scope: OutcomeSequences.Scope,
         sink: SubscriptionSink, confirmed: @escaping @Sendable (Bool) -> Void) {
        self.socket = socket
        self.prefix = prefix
        self.scope = scope
        self.sink = sink
        self.confirmed = confirmed
    }
}

/// Where a subscription's messages go: outcomes, or began events.
enum SubscriptionSink {
    case outcomes(AsyncStream<StreamedOutcome>.Continuation)
    /// Outcomes in the runs they arrived in.
    case outcomeBatches(AsyncStream<[StreamedOutcome]>.Continuation)
    case began(AsyncStream<StreamedBegan>.Continuation)
    /// Outcomes in runs, and word when another coordinator confirmed the subscription (a
    /// restart or a failover), for a subscription that resumes from a position.
    case resumable(AsyncStream<ResumableStreamEvent>.Continuation)

    func finish() {
        switch self {
        case .outcomes(let continuation): continuation.finish()
        case .outcomeBatches(let continuation): continuation.finish()
        case .began(let continuation): continuation.finish()
        case .resumable(let continuation): continuation.finish()
        }
    }
}

/// What the live side of a resuming subscription hears.
enum ResumableStreamEvent: Sendable {
    /// A run of outcomes, as they arrived.
    case outcomes([StreamedOutcome])
    /// A coordinator instance confirmed the subscription: the first, or another after a
    /// restart or failover (what was published in between reached no socket, so the history
    /// is asked for it).
    case confirmed(instance: String)
}
