/// The ActionClient's own ids, short enough to be small strings: a Swift string of at most 15
/// UTF-8 bytes is stored inline, so an id costs no allocation where it is made, decoded, kept
/// in a table or compared, in the client, the coordinator and the worker alike. The 32 hex
/// digits of a UUID made every id 34 bytes or more: some seven allocations a request across
/// the bus, and hashes and comparisons over all those bytes.
///
/// A client id is 10 characters of a URL-safe base-64 alphabet, 60 random bits: among a
/// million clients of one coordinator the chance that two draw the same id is below one in a
/// million, and an id cannot be guessed by trying. A request id is the client id, `:`, and the
/// sequence number in the same alphabet, most significant digit first: 15 bytes up to the
/// 16 777 215th request of a client, longer (and then allocated, as before) after that.
enum CompactRequestID {
    /// 64 characters, each valid in a wire name (printable ASCII, no `:`).
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let clientIDLength = 10

    /// A fresh client id: 60 random bits.
    static func clientID() -> String {
        var random = UInt64.random(in: 0...UInt64.max)
        return String(unsafeUninitializedCapacity: clientIDLength) { buffer in
            for index in 0..<clientIDLength {
                buffer[index] = alphabet[Int(random & 63)]
                random >>= 6
            }
            return clientIDLength
        }
    }

    /// `clientID:sequence`, the sequence in base 64.
    static func requestID(clientID: String, sequence: UInt64) -> String {
        var digits = 1
        while digits < 11, sequence >> (6 * UInt64(digits)) != 0 { digits += 1 }
        var clientID = clientID
        return clientID.withUTF8 { prefix in
            String(unsafeUninitializedCapacity: prefix.count + 1 + digits) { buffer in
                var index = 0
                for byte in prefix {
                    buffer[index] = byte
                    index += 1
                }
                buffer[index] = UInt8(ascii: ":")
                index += 1
                for digit in (0..<digits).reversed() {
                    buffer[index] = alphabet[Int((sequence >> (6 * UInt64(digit))) & 63)]
                    index += 1
                }
                return index
            }
        }
    }
}
