/// Bytes as lowercase hex, two digits a byte, in one allocation.
public enum HexText {
    /// `bytes` as hex text.
    ///
    /// Inlinable, so that it is specialised where it is called: unspecialised, stepping through
    /// a generic collection looked up type metadata for every byte, and naming each Majordomo
    /// request by its routing id cost the coordinator a tenth of its CPU.
    @inlinable
    public static func of<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = digit(byte >> 4)
                buffer[index + 1] = digit(byte & 0xF)
                index += 2
            }
            return index
        }
    }

    /// The lowercase hex digit of a value below 16.
    @inlinable
    static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }
}
