/// Bytes as lowercase hex, two digits a byte, in one allocation.
public enum HexText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as hex text.
    public static func of<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0xF)]
            }
            return bytes.count * 2
        }
    }
}
