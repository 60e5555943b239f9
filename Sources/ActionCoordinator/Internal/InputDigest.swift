/// A 64-bit digest (FNV-1a) of bytes: of a request's input, kept with its outcome so that a
/// reuse of the request id with other input is told from a resend without keeping the input
/// itself; and a short stand-in for a long routing id.
enum InputDigest {
    static func of<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
