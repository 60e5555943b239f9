import ActionWire
import ZeroMQ

extension Multipart: WireFrames, WireFrameWriter {
    /// The bytes of frame `index`, sharing the buffer's storage.
    public func frame(at index: Int) -> ArraySlice<UInt8> { self[index] }
}

extension Multipart {
    /// The message's frames for the codec, sharing its buffer.
    public var packedFrames: PackedFrames {
        let layout = layout
        return PackedFrames(bytes: layout.bytes, ends: layout.ends)
    }
}

extension Socket {
    /// Sends `frames` as one multipart message, as the `Multipart` overload does: with
    /// `.dontWait`, all of it or (``ZMQError/Code/wouldBlock``) none.
    public func send(_ frames: PackedFrames, options: SendOptions = []) throws {
        let last = frames.count - 1
        guard last >= 0 else { return }
        try frames.bytes.withUnsafeBytes { all in
            for index in 0...last {
                let frameOptions = index < last ? options.union(.more) : options.subtracting(.more)
                try send(UnsafeRawBufferPointer(rebasing: all[frames.range(of: index)]), options: frameOptions)
            }
        }
    }
}
