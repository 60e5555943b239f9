import CZeroMQ

/// ZeroMQ's Z85 text encoding of binary data (RFC 32), as used for CURVE keys.
package enum Z85 {
    /// Encodes `bytes`, whose count must be a multiple of 4.
    package static func encode(_ bytes: [UInt8]) throws -> String {
        guard bytes.count % 4 == 0 else { throw ZMQError(errno: EINVAL, call: "zmq_z85_encode") }
        var text = [CChar](repeating: 0, count: bytes.count * 5 / 4 + 1)
        guard zmq_z85_encode(&text, bytes, bytes.count) != nil else {
            throw ZMQError.last("zmq_z85_encode")
        }
        return String(nulTerminated: text)
    }

    /// Decodes `text`, whose length must be a multiple of 5.
    package static func decode(_ text: String) throws -> [UInt8] {
        let length = text.utf8.count
        guard length % 5 == 0 else { throw ZMQError(errno: EINVAL, call: "zmq_z85_decode") }
        var bytes = [UInt8](repeating: 0, count: length * 4 / 5)
        guard zmq_z85_decode(&bytes, text) != nil else {
            throw ZMQError(errno: EINVAL, call: "zmq_z85_decode")
        }
        return bytes
    }
}

extension String {
    /// Text from a NUL-terminated C character buffer.
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
