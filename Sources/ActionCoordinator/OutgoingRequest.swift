import ActionWire

/// A request the core chose for a worker, on its way out: the pending request and the time it
/// has left. Its record is made from the pending request's bytes where it is needed: written
/// straight into the worker's REQUEST message by the coordinator's driver, or packed into an
/// array of its own for any other outbox.
package struct OutgoingRequest {
    let pending: PendingRequest
    let timeoutMilliseconds: UInt32
    /// Its record's size in bytes.
    package let byteCount: Int

    init(_ pending: PendingRequest, timeoutMilliseconds: UInt32) {
        self.pending = pending
        self.timeoutMilliseconds = timeoutMilliseconds
        byteCount = pending.packedCount
    }

    package var requestID: String { pending.requestID }

    /// The record as an array of its own, for an outbox or a peer that takes it apart (a
    /// Majordomo worker).
    package var packed: PackedRequest { pending.packed(timeoutMilliseconds: timeoutMilliseconds) }

    /// Appends the record to `frames` as one frame, written in place.
    package func append(to frames: inout PackedFrames) {
        frames.appendFrame(count: byteCount) { pending.writePacked(into: $0, timeoutMilliseconds: timeoutMilliseconds) }
    }
}
