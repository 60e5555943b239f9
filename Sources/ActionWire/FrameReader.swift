#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads typed fields from consecutive frames, enforcing the limits.
struct FrameReader<Frames: WireFrames> {
    let frames: Frames
    let limits: WireLimits
    private(set) var index: Int
    let command: WireCommand

    init(_ frames: Frames, at start: Int, limits: WireLimits, command: WireCommand) {
        self.frames = frames
        self.index = start
        self.limits = limits
        self.command = command
    }

    var remaining: Int { frames.count - index }

    mutating func next(_ field: String) throws(WireError) -> ArraySlice<UInt8> {
        guard index < frames.count else {
            throw WireError(.truncated, "\(command) is missing its \(field) frame")
        }
        defer { index += 1 }
        return frames.frame(at: index)
    }

    /// A name, checked by ``WireName``.
    mutating func name(_ field: String, allowEmpty: Bool = false) throws(WireError) -> String {
        let command = self.command
        return try WireName.validate(try next(field), field: "\(command) \(field)", limits: limits, allowEmpty: allowEmpty)
    }

    /// A content type: a name, with the usual one (`application/json`) shared rather than
    /// made anew for every message.
    mutating func contentType() throws(WireError) -> String {
        if index < frames.count, Self.isJSON(frames.frame(at: index)) {
            index += 1
            return WireRequest.json
        }
        return try name("content type")
    }

    /// Whether `frame` is `application/json`: compared as two blocks of memory, which a
    /// comparison element by element (let alone through a `String`'s UTF-8 view) is not.
    private static func isJSON(_ frame: ArraySlice<UInt8>) -> Bool {
        let json = WireRequest.jsonBytes
        guard frame.count == json.count else { return false }
        return frame.withUnsafeBytes { frame in
            json.withUnsafeBytes { json in memcmp(frame.baseAddress!, json.baseAddress!, json.count) == 0 }
        }
    }

    /// Free text such as an error message: UTF-8, at most `maxBodyBytes`.
    mutating func text(_ field: String) throws(WireError) -> String {
        let bytes = try body(field)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw WireError(.invalidUTF8, "\(command) \(field) is not valid UTF-8")
        }
        return text
    }

    mutating func body(_ field: String) throws(WireError) -> ArraySlice<UInt8> {
        let bytes = try next(field)
        guard bytes.count <= limits.maxBodyBytes else {
            throw WireError(.oversize, "\(command) \(field) has \(bytes.count) bytes, limit \(limits.maxBodyBytes)")
        }
        return bytes
    }

    mutating func fixed(_ field: String, size: Int) throws(WireError) -> ArraySlice<UInt8> {
        let bytes = try next(field)
        guard bytes.count == size else {
            throw WireError(.truncated, "\(command) \(field) has \(bytes.count) bytes, expected \(size)")
        }
        return bytes
    }

    mutating func uint32(_ field: String) throws(WireError) -> UInt32 {
        let bytes = try fixed(field, size: 4)
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64(_ field: String) throws(WireError) -> UInt64 {
        let bytes = try fixed(field, size: 8)
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The rest of the frames as request ids: at least one, at most the limit.
    mutating func requestIDs() throws(WireError) -> [String] {
        guard remaining >= 1 else { throw WireError(.truncated, "\(command) names no request id") }
        guard remaining <= limits.maxRequestIDsPerMessage else {
            throw WireError(.oversize, "\(command) names \(remaining) request ids, limit \(limits.maxRequestIDsPerMessage)")
        }
        var requestIDs: [String] = []
        requestIDs.reserveCapacity(remaining)
        while remaining > 0 { requestIDs.append(try name("request id")) }
        return requestIDs
    }

    func end() throws(WireError) {
        guard index == frames.count else {
            throw WireError(.extraFrames, "\(command) has \(frames.count - index) unexpected trailing frame(s)")
        }
    }
}

extension FixedWidthInteger {
    /// The value's bytes, most significant first (network order).
    var bigEndianBytes: [UInt8] {
        withUnsafeBytes(of: self.bigEndian) { Array($0) }
    }
}

extension ArraySlice<UInt8> {
    /// Reads a big-endian integer of `T` starting at `offset` from the slice's start.
    func bigEndianInteger<T: FixedWidthInteger>(at offset: Int, as type: T.Type = T.self) -> T {
        let start = startIndex + offset
        return self[start..<start + MemoryLayout<T>.size].reduce(0) { $0 << 8 | T($1) }
    }
}
