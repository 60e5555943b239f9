import ActionWire

/// A request chosen for a worker during a batch, until the batch's REQUEST goes: a pending
/// request, whose record is written straight into that message (no array of its own), or one
/// already packed.
enum OutgoingRequest {
    case pending(PendingRequest, timeoutMilliseconds: UInt32)
    case packed(PackedRequest)

    /// Its record's size in bytes.
    var byteCount: Int {
        switch self {
        case .pending(let pending, _): pending.packedCount
        case .packed(let packed): packed.record.count
        }
    }

    var requestID: String {
        switch self {
        case .pending(let pending, _): pending.requestID
        case .packed(let packed): packed.requestID
        }
    }

    /// The record as an array of its own, for a peer that takes it apart (a Majordomo worker).
    var packed: PackedRequest {
        switch self {
        case .pending(let pending, let timeoutMilliseconds): pending.packed(timeoutMilliseconds: timeoutMilliseconds)
        case .packed(let packed): packed
        }
    }

    /// Appends the record to `frames` as one frame.
    func append(to frames: inout PackedFrames) {
        switch self {
        case .pending(let pending, let timeoutMilliseconds):
            frames.appendFrame(count: pending.packedCount) { pending.writePacked(into: $0, timeoutMilliseconds: timeoutMilliseconds) }
        case .packed(let packed):
            frames.append(packed.record)
        }
    }
}
