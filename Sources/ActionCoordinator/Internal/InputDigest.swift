import Foundation

/// A 64-bit digest of bytes: of a request's input, kept with its outcome so that a reuse of the
/// request id with other input is told from a resend without keeping the input itself; and a
/// short stand-in for a long routing id.
///
/// FNV-1a's step taken eight bytes at a time (each product folded down, so every byte reaches
/// the low bits), then byte by byte for the tail: every request's input is digested once, and a
/// byte at a time was a chain of 46 dependent multiplications for a 46-byte input. No digest is
/// ever compared with one another build made: the input digests live in memory, and the routing
/// text of a long routing id (in a Majordomo worker's name and its clients' request ids, which
/// the journal keeps) only has to be unique, which the instance id and sequence see to. So the
/// algorithm may change between versions, as it did here; those names change with it.
enum InputDigest {
    private static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01B3

    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = offsetBasis ^ UInt64(bytes.count)
        var offset = 0
        while bytes.count - offset >= 8 {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* prime
            hash ^= hash >> 32
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* prime
            offset += 1
        }
        return hash
    }

    /// The digest of an array's or a slice's bytes.
    static func of(_ bytes: some ContiguousBytes) -> UInt64 {
        bytes.withUnsafeBytes { of($0) }
    }
}
