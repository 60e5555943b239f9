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
    /// The client to answer; updated when a retry arrives from a new connection. `nil` for a
    /// request recovered from the journal until its client sends it again.
    var client: ClientAddress?
    /// The client that first sent it: only it (see ``ClientAddress/mayActOn(requestID:firstSentBy:)``)
    /// may cancel it or take its outcome. `nil` for a request recovered from the journal.
    let firstSender: ClientAddress?
    /// The share of the queue it counts against: its first sender's connection's (`nil` for a
    /// recovered request, which counts against no one's share).
    let share: ClientShare?
    /// Acceptance order: requests requeued from a dead worker go back to the head of the queue,
    /// among themselves in the order they were accepted.
    let order: UInt64
    let deadline: ContinuousClock.Instant
    var placement: Placement = .queued
    var deliveries = 0
    /// Recovered from the journal after a restart: a worker may still be running it from before.
    var recovered = false
    /// Answered and out of the table: a lane entry still pointing at it is stale.
    var isFinished = false
    /// Where its deadline sits in the ``DeadlineWheel``: the wheel's own bookkeeping.
    var wheelBucket: DeadlineWheel.Bucket?
    var wheelIndex = 0

    init(request: WireRequest, client: ClientAddress?, share: ClientShare?, order: UInt64, deadline: ContinuousClock.Instant) {
        self.request = request
        self.client = client
        self.firstSender = client
        self.share = share
        self.order = order
        self.deadline = deadline
    }
}
