import ActionWire

/// A query (STATS, STACKS, REPLAY, ...) waiting for its answer. The message is kept so it can
/// go again: a query sent to a group member that was not the leader, or over a connection
/// that dropped, is never answered, and asking twice is harmless (a read, answered by id).
struct PendingQuery {
    let message: ClientMessage
    let deliver: @Sendable (Result<[UInt8], ActionBusError>) -> Void
}
