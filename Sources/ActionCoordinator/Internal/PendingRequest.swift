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
    /// The connection whose share of the queue it counts against (the one that sent it first;
    /// `nil` for a recovered request, which counts against no one's share).
    let owner: RoutingKey?
    /// The client that first sent it: only it (see ``ClientAddress/mayActOn(requestID:firstSentBy:)``)
    /// may cancel it or take its outcome. `nil` for a request recovered from the journal.
    let firstSender: ClientAddress?
    /// Acceptance order: requests requeued from a dead worker go back to the head of the queue,
    /// among themselves in the order they were accepted.
    let order: UInt64
    let deadline: ContinuousClock.Instant
    var placement: Placement = .queued
    var deliveries = 0
    /// Recovered from the journal after a restart: a worker may still be running it from before.
    var recovered = false

    init(request: WireRequest, client: ClientAddress?, order: UInt64, deadline: ContinuousClock.Instant) {
        self.request = request
        self.client = client
        self.owner = client.map { RoutingKey($0.routingID) }
        self.firstSender = client
        self.order = order
        self.deadline = deadline
    }
}
