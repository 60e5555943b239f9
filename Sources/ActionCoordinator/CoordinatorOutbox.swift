import ActionJournal
import ActionWire

/// Where the coordinator's decisions go: sockets in production, arrays in tests.
package protocol CoordinatorOutbox: AnyObject {
    /// Sends a reply to a client.
    func send(_ reply: ClientReply, to client: ClientAddress)
    /// Sends a reply that depends on nothing the journal is still committing (PONG, a query's
    /// answer, a refusal that recorded nothing) without holding it behind the commits under
    /// way: a commit waiting for a standby must not silence the coordinator's liveness answers,
    /// nor the refusals that say why it takes no new work.
    func sendUnheld(_ reply: ClientReply, to client: ClientAddress)
    /// Sends an instruction to a worker; returns `false` when the worker is unreachable.
    ///
    /// A REQUEST may wait for the end of the batch being handled, to go with the others for the
    /// same worker in one message; if that message cannot leave, the driver hands its requests
    /// back with ``CoordinatorCore/undelivered(_:to:now:)``.
    func send(_ instruction: WorkerInstruction, to worker: WorkerID) -> Bool
    /// Sends an instruction to a worker once every record journaled so far is durable, after the
    /// replies of the batch being handled (the answer to a marked heartbeat); at once without a
    /// journal. Unsent when the worker has become unreachable meanwhile.
    func sendWhenDurable(_ instruction: WorkerInstruction, to worker: WorkerID)
    /// Sends a request the core chose for `worker` (a REQUEST), with the same contract as
    /// ``send(_:to:)``. The default sends it packed, as ``WorkerInstruction/packedRequest(_:)``;
    /// the coordinator's driver writes its record straight into the message it goes out in.
    func send(_ request: OutgoingRequest, to worker: WorkerID) -> Bool
    /// Forgets the requests waiting to go to `worker` (it is gone, and they are requeued) and
    /// returns their ids: the worker never had them.
    func withdrawRequests(to worker: WorkerID) -> [String]
    /// Publishes on the outcome stream.
    func publish(_ message: StreamMessage)
    /// Records an acceptance or an outcome in the journal. Replies sent after this call must
    /// reach the client only once the record is durable (the driver holds them until its commit).
    /// The record is made only when there is a journal to take it.
    func journal(_ record: @autoclosure () -> JournalRecord)
    /// Whether anyone subscribes to the outcome stream; when nobody does, outcomes are numbered
    /// but not published.
    var hasSubscribers: Bool { get }
    /// Holds the release of stream positions up to `position` for replays until the batch's
    /// records are durable (the driver then calls ``CoordinatorCore/streamReleased(upTo:)``);
    /// `false`: nothing is held, the position may be replayed at once.
    func holdStreamPosition(_ position: UInt64) -> Bool
}

extension CoordinatorOutbox {
    /// The request packed into a record of its own and sent as an instruction.
    package func send(_ request: OutgoingRequest, to worker: WorkerID) -> Bool {
        send(.packedRequest(request.packed), to: worker)
    }

    /// Nothing is held: sent at once.
    package func sendWhenDurable(_ instruction: WorkerInstruction, to worker: WorkerID) {
        _ = send(instruction, to: worker)
    }

    /// Nothing is held: the same as any reply.
    package func sendUnheld(_ reply: ClientReply, to client: ClientAddress) {
        send(reply, to: client)
    }

    /// No journal: records go nowhere.
    package func journal(_ record: @autoclosure () -> JournalRecord) {}

    /// Always publish.
    package var hasSubscribers: Bool { true }

    /// Nothing is held: positions may be replayed at once.
    package func holdStreamPosition(_ position: UInt64) -> Bool { false }

    /// Nothing waits: requests are sent at once.
    package func withdrawRequests(to worker: WorkerID) -> [String] { [] }
}

/// A worker's identity: the routing id of its connection to the workers socket.
package struct WorkerID: Hashable, Sendable, CustomStringConvertible {
    /// The routing id bytes.
    package var routingID: [UInt8]

    /// Wraps a routing id.
    package init(_ routingID: [UInt8]) { self.routingID = routingID }

    package var description: String { HexText.of(routingID) }

    /// Hashes the bytes in one call, not one `combine` per byte: it is looked up several times
    /// per request.
    package func hash(into hasher: inout Hasher) {
        routingID.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
