/// How much of a journal file a standby holds, and the CRC-32 of those bytes: told to a leader
/// that is about to catch it up (``ReplicationMessage/Kind/held``), so that a standby whose file
/// is the start of the leader's is sent only the rest (``ReplicationMessage/Kind/tail``), not the
/// whole file again.
///
/// A standby's file is a byte copy of a leader's, up to what it acknowledged; a new leader's file
/// is the same copy up to what it acknowledged, then its own appends. After a failover or a
/// standby's restart the two usually share everything the standby holds.
package struct JournalPrefix: Equatable, Sendable {
    /// The number of bytes.
    package var length: Int
    /// The CRC-32 of those bytes.
    package var checksum: UInt32

    /// Twelve bytes on the wire: the length (u64), then the checksum (u32), big-endian.
    package static let encodedBytes = 12

    package init(length: Int, checksum: UInt32) {
        self.length = length
        self.checksum = checksum
    }

    /// The prefix that is all of `bytes`.
    package init(of bytes: some Collection<UInt8>) {
        length = bytes.count
        checksum = CRC32.checksum(bytes)
    }

    /// Whether `bytes` start with the bytes this describes.
    package func begins(_ bytes: [UInt8]) -> Bool {
        length <= bytes.count && CRC32.checksum(bytes[..<length]) == checksum
    }

    package var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.encodedBytes)
        withUnsafeBytes(of: UInt64(length).bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: checksum.bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Reads the first twelve bytes of `bytes`; `nil` when there are fewer, or the length is
    /// past what a file can hold.
    package init?(decoding bytes: some Collection<UInt8>) {
        guard bytes.count >= Self.encodedBytes else { return nil }
        let start = bytes.startIndex
        let length = bytes[start..<bytes.index(start, offsetBy: 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let checksumStart = bytes.index(start, offsetBy: 8)
        let checksum = bytes[checksumStart..<bytes.index(checksumStart, offsetBy: 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard length <= UInt64(Int.max) else { return nil }
        self.init(length: Int(length), checksum: checksum)
    }
}
