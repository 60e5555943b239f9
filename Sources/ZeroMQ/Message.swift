import CZeroMQ

/// One ZeroMQ frame that owns its `zmq_msg_t`.
///
/// `zmq_msg_t` is a C struct that Swift would copy freely; a copy would be closed twice. A
/// `Message` keeps the struct at one heap address for its whole life, cannot be copied, is
/// consumed by ``Socket/send(_:options:)-(consuming Message,_)``, and closes the frame exactly
/// once when it is dropped.
package struct Message: ~Copyable {
    let pointer: UnsafeMutablePointer<zmq_msg_t>

    /// An empty frame, ready to receive into.
    package init() {
        pointer = .allocate(capacity: 1)
        zmq_msg_init(pointer)
    }

    /// A frame holding a copy of `bytes`.
    package init(bytes: UnsafeRawBufferPointer) throws {
        pointer = try Message.allocate(size: bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 {
            zmq_msg_data(pointer).copyMemory(from: base, byteCount: bytes.count)
        }
    }

    /// A frame holding a copy of `bytes`.
    package init(_ bytes: [UInt8]) throws {
        pointer = try Message.allocate(size: bytes.count)
        let destination = zmq_msg_data(pointer)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress, source.count > 0 {
                destination?.copyMemory(from: base, byteCount: source.count)
            }
        }
    }

    /// A frame holding the UTF-8 bytes of `text`.
    package init(_ text: String) throws {
        try self.init(Array(text.utf8))
    }

    private static func allocate(size: Int) throws -> UnsafeMutablePointer<zmq_msg_t> {
        let pointer = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        guard zmq_msg_init_size(pointer, size) == 0 else {
            let error = ZMQError.last("zmq_msg_init_size")
            pointer.deallocate()
            throw error
        }
        return pointer
    }

    deinit {
        zmq_msg_close(pointer)
        pointer.deallocate()
    }

    /// The number of bytes in the frame.
    package var count: Int { zmq_msg_size(pointer) }

    /// Whether more frames of the same multipart message follow this one (after a receive).
    package var hasMore: Bool { zmq_msg_more(pointer) != 0 }

    /// Calls `body` with the frame's bytes, valid only inside the call.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: zmq_msg_data(pointer), count: zmq_msg_size(pointer)))
    }

    /// A copy of the frame's bytes.
    package var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The frame decoded as UTF-8, repairing invalid sequences.
    package var string: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}
