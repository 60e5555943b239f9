import CZeroMQ

extension Socket {
    /// Sets an integer option.
    package func setOption(_ option: SocketOption<Int32>, _ value: Int32) throws {
        var value = value
        try setRaw(option.rawValue, &value, MemoryLayout<Int32>.size)
    }

    /// Sets a 64-bit integer option.
    package func setOption(_ option: SocketOption<Int64>, _ value: Int64) throws {
        var value = value
        try setRaw(option.rawValue, &value, MemoryLayout<Int64>.size)
    }

    /// Sets a boolean option.
    package func setOption(_ option: SocketOption<Bool>, _ value: Bool) throws {
        var flag: Int32 = value ? 1 : 0
        try setRaw(option.rawValue, &flag, MemoryLayout<Int32>.size)
    }

    /// Sets a binary option.
    package func setOption(_ option: SocketOption<[UInt8]>, _ value: [UInt8]) throws {
        try value.withUnsafeBytes { bytes in
            guard zmq_setsockopt(handle, option.rawValue, bytes.baseAddress, bytes.count) == 0 else {
                throw ZMQError.last("zmq_setsockopt(\(option.rawValue))")
            }
        }
    }

    /// Sets a binary option from UTF-8 text (topics, routing ids).
    package func setOption(_ option: SocketOption<[UInt8]>, _ value: String) throws {
        try setOption(option, Array(value.utf8))
    }

    /// Sets a text option.
    package func setOption(_ option: SocketOption<String>, _ value: String) throws {
        try setOption(SocketOption<[UInt8]>(rawValue: option.rawValue), Array(value.utf8))
    }

    /// Reads an integer option.
    package func option(_ option: SocketOption<Int32>) throws -> Int32 {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        try getRaw(option.rawValue, &value, &size)
        return value
    }

    /// Reads a 64-bit integer option.
    package func option(_ option: SocketOption<Int64>) throws -> Int64 {
        var value: Int64 = 0
        var size = MemoryLayout<Int64>.size
        try getRaw(option.rawValue, &value, &size)
        return value
    }

    /// Reads a boolean option.
    package func option(_ option: SocketOption<Bool>) throws -> Bool {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        try getRaw(option.rawValue, &value, &size)
        return value != 0
    }

    /// Reads a binary option (up to 255 bytes, enough for routing ids).
    package func option(_ option: SocketOption<[UInt8]>) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 256)
        var size = buffer.count
        try buffer.withUnsafeMutableBytes { try getRaw(option.rawValue, $0.baseAddress!, &size) }
        return Array(buffer.prefix(size))
    }

    /// Reads a text option, without its terminating NUL.
    package func option(_ option: SocketOption<String>) throws -> String {
        var bytes = try self.option(SocketOption<[UInt8]>(rawValue: option.rawValue))
        while bytes.last == 0 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a message can be received now without blocking.
    package var isReadable: Bool {
        get throws { try option(.events) & ZMQ_POLLIN != 0 }
    }

    private func setRaw(_ name: Int32, _ value: UnsafeRawPointer, _ size: Int) throws {
        guard zmq_setsockopt(handle, name, value, size) == 0 else {
            throw ZMQError.last("zmq_setsockopt(\(name))")
        }
    }

    private func getRaw(_ name: Int32, _ value: UnsafeMutableRawPointer, _ size: inout Int) throws {
        guard zmq_getsockopt(handle, name, value, &size) == 0 else {
            throw ZMQError.last("zmq_getsockopt(\(name))")
        }
    }
}
