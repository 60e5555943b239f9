import ActionBusTestSupport
@testable import ActionJournal
import Testing

@Suite("CRC-32")
struct CRC32Tests {
    /// The byte-at-a-time definition the journal's records were always checked with.
    private static func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func theStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    /// Every length around the eight-byte steps, at every alignment, as slices and as arrays.
    @Test(.seeded) func eightBytesAStepAgreesWithTheDefinition() {
        var generator = SeededRandom()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for start in 0..<8 {
            for length in 0...(bytes.count - start) where length < 40 || length % 37 == 0 {
                let slice = bytes[start..<(start + length)]
                #expect(CRC32.checksum(slice) == Self.reference(Array(slice)), "start \(start), length \(length)")
            }
        }
        #expect(CRC32.checksum(bytes.lazy.map { $0 }) == Self.reference(bytes), "a sequence without contiguous storage")
    }
}
