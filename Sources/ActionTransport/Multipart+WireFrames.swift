import ActionWire
import ZeroMQ

extension Multipart: WireFrames, WireFrameWriter {
    /// The bytes of frame `index`, sharing the buffer's storage.
    package func frame(at index: Int) -> ArraySlice<UInt8> { self[index] }
}

extension Multipart {
    /// The message's frames for the codec, sharing its buffer.
    package var packedFrames: PackedFrames {
        let layout = layout
        return PackedFrames(bytes: layout.bytes, ends: layout.ends)
    }
}

extension Socket {
    /// Sends `frames` as one multipart message (see the `Multipart` overload), sharing its buffer.
    package func send(_ frames: PackedFrames, options: SendOptions = []) throws {
        try send(Multipart(bytes: frames.bytes, ends: frames.ends), options: options)
    }
}
