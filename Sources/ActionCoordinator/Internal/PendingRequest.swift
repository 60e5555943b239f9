import ActionWire

/// An accepted request the coordinator has not answered yet.
///
/// A class: the coordinator changes it in place (placement, deliveries, client) several times
/// in its life, and a struct this size would be copied out of and back into the table each time.
final class PendingRequest {
    enum Placement: Equatable {
        case queued
        case running(on: WorkerID)
    }

    let request: WireRequest
    /// The client to answer: its first sender, until a retry arrives from another connection.
    /// `nil` for a request recovered from the journal until its client sends it again.
    var client: ClientAddress? {
        get { movedClient?.address ?? firstSender }
        set { movedClient = newValue == firstSender ? nil : newValue.map(MovedClient.init) }
    }
    /// Where a retry from another connection moved the answer to. Rare, so kept out of line:
    /// an address inline costs every queued request about 50 bytes.
    private var movedClient: MovedClient?
    /// The client that first sent it, and the share of the queue it counts against (its
    /// connection's). `nil` for a request recovered from the journal, which counts against no
    /// one's share.
    let sender: RequestSender?
    /// The client that first sent it: only it (see ``ClientAddress/mayActOn(requestID:firstSentBy:)``)
    /// may cancel it or take its outcome.
    var firstSender: ClientAddress? { sender?.address }
    /// Acceptance order: requests requeued from a dead worker go back to the head of the queue,
    /// among themselves in the order they were accepted.
    let order: UInt64
    /// The deadline, in nanoseconds after ``epoch``: half the size of an `Instant`.
    private let deadlineOffset: Int64
    var deadline: ContinuousClock.Instant { Self.epoch.advanced(by: .nanoseconds(deadlineOffset)) }
    private static let epoch = ContinuousClock.now
    // The small fields sit together after the placement, so that a million queued requests
    // do not each pay for padding.
    var placement: Placement = .queued
    /// Recovered from the journal after a restart: a worker may still be running it from before.
    var recovered = false
    /// Answered and out of the table: a lane entry still pointing at it is stale.
    var isFinished = false
    /// Where its deadline sits in the ``DeadlineWheel``: the wheel's own bookkeeping.
    var wheelIndex: Int32 = 0
    private var deliveryCount: Int32 = 0
    /// How many times it was sent to a worker (counting back the sends that never left).
    var deliveries: Int {
        get { Int(deliveryCount) }
        set { deliveryCount = Int32(clamping: newValue) }
    }
    var wheelBucket: DeadlineWheel.Bucket?

    init(request: WireRequest, sender: RequestSender?, order: UInt64, deadline: ContinuousClock.Instant) {
        self.request = request
        self.sender = sender
        self.order = order
        let offset = (deadline - Self.epoch).components
        self.deadlineOffset = offset.seconds * 1_000_000_000 + offset.attoseconds / 1_000_000_000
    }

    private final class MovedClient {
        let address: ClientAddress
        init(_ address: ClientAddress) { self.address = address }
    }
}
