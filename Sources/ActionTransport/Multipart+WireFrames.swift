import ActionWire
import ZeroMQ

extension Multipart: WireFrames, WireFrameWriter {
    /// The bytes of frame `index`, sharing the buffer's storage.
    public func frame(at index: Int) -> ArraySlice<UInt8> { self[index] }
}
