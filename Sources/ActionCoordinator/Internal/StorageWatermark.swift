/// The disk watermark: whether the journal's file system has room for new requests, judged
/// from its measured free space, with a gap between the level that stops new requests and the
/// one that lets them in again.
package struct StorageWatermark: Sendable {
    /// A crossing of the watermark.
    package enum Change: Equatable, Sendable {
        /// Free space fell below the minimum: new requests are refused from now on.
        case filled
        /// Free space came back to the resume level: new requests are accepted again.
        case freed
    }

    /// Below this many free bytes new requests are refused; `0` never refuses.
    package let minimumBytes: Int
    /// The free bytes at which requests are accepted again: an eighth above the minimum, so a
    /// disk at the line (each journaled outcome takes a little, each compaction gives some
    /// back) does not flip the state, and log it, at every measurement.
    package let resumeBytes: Int
    /// Refusing new requests now.
    package private(set) var isFull = false
    /// The last measurement; `nil` before the first.
    package private(set) var freeBytes: Int?

    package init(minimumBytes: Int) {
        self.minimumBytes = max(0, minimumBytes)
        resumeBytes = self.minimumBytes + self.minimumBytes / 8
    }

    /// Takes a measurement; returns the crossing it makes, if any.
    package mutating func measured(freeBytes: Int) -> Change? {
        self.freeBytes = freeBytes
        if !isFull, freeBytes < minimumBytes {
            isFull = true
            return .filled
        }
        if isFull, freeBytes >= resumeBytes {
            isFull = false
            return .freed
        }
        return nil
    }
}
