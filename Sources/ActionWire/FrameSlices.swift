/// Frames that are slices of one buffer, read where they lie: a journal's records are decoded
/// from the file's bytes without a copy of each frame (the decoders copy what they keep).
package struct FrameSlices: WireFrames, Sendable {
    /// The frames, in order.
    package var slices: [ArraySlice<UInt8>]

    package init(_ slices: [ArraySlice<UInt8>] = []) { self.slices = slices }

    package var count: Int { slices.count }
    package func frame(at index: Int) -> ArraySlice<UInt8> { slices[index] }
}

// Decoding from slices, specialized in this module: a generic decode called from another
// module runs unspecialized (a journal's recovery spent a fifth of its time looking up generic
// metadata).

extension WireRequest {
    /// ``decode(fields:at:limits:)`` of frames that are slices of one buffer.
    package static func decode(slices: FrameSlices, limits: WireLimits) throws(WireError) -> WireRequest {
        try decode(fields: slices, at: 0, limits: limits)
    }
}

extension WireOutcome {
    /// ``decode(fields:at:limits:)`` of frames that are slices of one buffer.
    package static func decode(slices: FrameSlices, limits: WireLimits) throws(WireError) -> WireOutcome {
        try decode(fields: slices, at: 0, limits: limits)
    }
}
