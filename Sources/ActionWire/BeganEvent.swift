/// A requested action starting on a worker (Flint's `actionWillBegin`), as BEGAN (worker →
/// coordinator) and the outcome stream's BEGAN carry it: one packed record of four names.
///
/// Workers send them only while someone subscribes to them (the coordinator says so with
/// REPORTING), so a bus nobody watches this closely pays nothing for them.
public struct BeganEvent: Sendable, Hashable {
    /// The request that started.
    public var requestID: String
    /// The full action name.
    public var action: String
    /// The session it runs in; empty for the worker's default session.
    public var session: String
    /// The worker's name: empty from the worker itself, filled in by the coordinator.
    public var worker: String

    /// Creates an event.
    public init(requestID: String, action: String, session: String, worker: String = "") {
        self.requestID = requestID
        self.action = action
        self.session = session
        self.worker = worker
    }

    /// The event as one packed record.
    package var packed: [UInt8] {
        var writer = PackedRecordWriter(capacity: 16 + requestID.utf8.count + action.utf8.count + session.utf8.count + worker.utf8.count)
        writer.append(requestID)
        writer.append(action)
        writer.append(session)
        writer.append(worker)
        return writer.bytes
    }

    /// About how many bytes it takes on the wire.
    package var byteCount: Int { 16 + requestID.utf8.count + action.utf8.count + session.utf8.count + worker.utf8.count }

    /// Decodes a packed record.
    package static func unpack(_ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits) throws(WireError) -> BeganEvent {
        try PackedRecord.read(frame, command: command, limits: limits) { (reader) throws(WireError) in
            let requestID = try reader.name("request id")
            let action = try reader.name("action")
            guard WireName.isActionName(action) else {
                throw WireError(.invalidField, "action name '\(action)' is not of the form Feature.action")
            }
            return BeganEvent(
                requestID: requestID, action: action, session: try reader.name("session", allowEmpty: true),
                worker: try reader.name("worker", allowEmpty: true)
            )
        }
    }
}
