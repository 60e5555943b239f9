/// The error codes a failure outcome carries on the wire.
///
/// Action code chooses its own codes; these are the ones the bus itself uses. The names
/// match `ActionError.Code` in ActionCore where both exist.
package enum BusErrorCode {
    /// The action failed on its own terms.
    package static let actionFailed = "actionFailed"
    /// The action's output is larger than the coordinator's message limit; the worker did not
    /// send it (it would have been refused, and the connection with it).
    package static let resultTooLarge = "resultTooLarge"
    /// The request id (an idempotency key, say) was first used for another action, session or
    /// input: the other request's outcome is not this one's.
    package static let idempotencyConflict = "idempotencyConflict"
    /// The request belongs to another client (another CURVE key, or another client's own id):
    /// only the client that sent it may resend or cancel it.
    package static let notOwner = "notOwner"
    /// The input could not be decoded as the action's input type.
    package static let invalidInput = "invalidInput"
    /// No action of that name is known to the worker.
    package static let unknownAction = "unknownAction"
    /// The request's deadline passed.
    package static let timedOut = "timedOut"
    /// The client cancelled the request.
    package static let cancelled = "cancelled"
    /// The coordinator's queue is full.
    package static let overloaded = "overloaded"
    /// The coordinator's journal is on a file system with less free space than its minimum
    /// (`--min-free-disk`): new requests are refused until space returns; accepted ones still run.
    package static let storageFull = "storageFull"
    /// Too few standbys hold the coordinator's journal (replication to them is behind): new
    /// requests are refused until they are back; accepted ones still run.
    package static let unavailable = "unavailable"
    /// No worker serving the action appeared before the deadline.
    package static let noWorker = "noWorker"
    /// Every worker that took the request died with it, `maxDeliveries` times.
    package static let poisoned = "poisoned"
    /// The message could not be decoded.
    package static let malformedRequest = "malformedRequest"
    /// The message speaks another protocol version.
    package static let unsupportedVersion = "unsupportedVersion"
    /// A CANCEL named a request the coordinator does not know.
    package static let unknownRequest = "unknownRequest"
}
