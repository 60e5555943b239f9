@testable import ActionCoordinator
import Testing

/// The digest that tells a resend from a reuse of its request id with other input.
@Suite("Input digest")
struct InputDigestTests {
    @Test func aChangeOfAnyOneByteChangesTheDigest() {
        // 46 bytes: five whole words and a tail, as the benchmarks' input.
        let input = Array(#"{"text":"0123456789012345678901234567890123"}"#.utf8)
        let digest = InputDigest.of(input)
        for index in input.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var changed = input
                changed[index] ^= flip
                #expect(InputDigest.of(changed) != digest, "byte \(index) xor \(flip)")
            }
        }
    }

    @Test func inputsThatDifferOnlyInLengthDiffer() {
        // Zero bytes added at the end would leave a plain xor-and-multiply digest unchanged.
        var digests: Set<UInt64> = []
        for count in 0..<40 { digests.insert(InputDigest.of([UInt8](repeating: 0, count: count))) }
        #expect(digests.count == 40)
    }

    @Test func theDigestOfBytesInPlaceIsTheDigestOfTheirArray() {
        let input = Array("a request's input, longer than a word".utf8)
        #expect(input.withUnsafeBytes { InputDigest.of($0) } == InputDigest.of(input))
    }
}
