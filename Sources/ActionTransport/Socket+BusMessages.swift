import ActionWire
import ZeroMQ

// ActionBus messages on a socket: sent packed into one frame (``WirePacking``), received
// either way. Majordomo's messages, and anything else that is not ABP, go through the socket's
// plain sends and pass through these receives as they are.

extension Socket {
    /// Sends `frames` as one ActionBus message: the first `envelope` frames (a routing id, a
    /// topic) as they are, then the message itself, its header first, packed into one frame.
    package func sendBusMessage(_ frames: PackedFrames, envelope: Int = 0, options: SendOptions = []) throws {
        precondition(frames.count > envelope, "an ActionBus message has at least its header")
        for index in 0..<envelope {
            try frames.frame(at: index).withUnsafeBytes { try send($0, options: options.union(.more)) }
        }
        try send(count: frames.packedCount(from: envelope), options: options.subtracting(.more)) { buffer in
            frames.pack(from: envelope, into: buffer)
        }
    }

    /// Receives a whole message if one is queued (``receiveIfAvailable(into:appending:)``), a
    /// packed ActionBus message after `envelope` frames unpacked into its frames.
    package func receiveBusMessageIfAvailable(into message: inout Multipart, envelope: Int = 0) -> Bool {
        receiveIfAvailable(into: &message) { message, frame, index, more in
            message.appendBusFrame(frame, unpacking: index == envelope && !more)
        }
    }

    /// ``receiveBusMessageIfAvailable(into:envelope:)`` with the user id the connection was
    /// authenticated under (see ``receiveIfAvailable(into:userID:appending:)``).
    package func receiveBusMessageIfAvailable(into message: inout Multipart, envelope: Int = 0, userID: inout String?) -> Bool {
        receiveIfAvailable(into: &message, userID: &userID) { message, frame, index, more in
            message.appendBusFrame(frame, unpacking: index == envelope && !more)
        }
    }

    /// Receives a whole message, waiting as `options` say, a packed ActionBus message after
    /// `envelope` frames unpacked into its frames.
    package func receiveBusMessage(into message: inout Multipart, envelope: Int = 0, options: ReceiveOptions = []) throws {
        try receive(into: &message, options: options) { message, frame, index, more in
            message.appendBusFrame(frame, unpacking: index == envelope && !more)
        }
    }

    /// Receives a whole message (``receiveBusMessage(into:envelope:options:)``).
    package func receiveBusMessage(envelope: Int = 0, options: ReceiveOptions = []) throws -> Multipart {
        var message = Multipart()
        try receiveBusMessage(into: &message, envelope: envelope, options: options)
        return message
    }
}

extension Multipart {
    /// Appends a received frame; when `unpacking` (it is where an ActionBus message starts, and
    /// the last frame) and it is a packed message, the frames it holds instead. A packed frame
    /// whose lengths do not add up stays whole, for the codec to refuse.
    mutating func appendBusFrame(_ frame: UnsafeRawBufferPointer, unpacking: Bool) {
        if unpacking, WirePacking.isPacked(frame), WirePacking.forEachFrame(in: frame, { append($0) }) { return }
        append(frame)
    }
}
