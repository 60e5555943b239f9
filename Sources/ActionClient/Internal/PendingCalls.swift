/// The calls waiting for their outcomes, by request id.
///
/// Nearly every id is the client's own (`clientID:sequence`, ``CompactRequestID``): those calls
/// are found by their sequence number, in a table whose slot is the number itself (the numbers
/// in flight are consecutive, so they seldom share a slot), with no hash of the id. A
/// `[String: PendingCall]` hashed each id with SipHash on insert, on lookup and on removal,
/// and rehashed the entries a removal shifted back: 8 % of a busy client's CPU. Any other id
/// (one the caller chose, an idempotency key) is kept by its text.
struct PendingCalls {
    /// `clientID:`, the prefix of the client's own ids.
    private let ownPrefix: [UInt8]
    private var bySequence = SequenceTable()
    private var byText: [String: PendingCall] = [:]

    init(clientID: String) {
        ownPrefix = Array(clientID.utf8) + [UInt8(ascii: ":")]
    }

    var isEmpty: Bool { bySequence.count == 0 && byText.isEmpty }
    var count: Int { bySequence.count + byText.count }

    /// Every pending call, in no particular order.
    var all: [PendingCall] { bySequence.elements + byText.values }

    subscript(requestID: String) -> PendingCall? {
        if let sequence = sequence(of: requestID) { return bySequence[sequence] }
        return byText[requestID]
    }

    /// Adds `call` under `requestID`, unless a call is pending under that id already: that
    /// call is returned, and the table is unchanged.
    mutating func insert(_ call: PendingCall, for requestID: String) -> PendingCall? {
        if let sequence = sequence(of: requestID) { return bySequence.insert(call, for: sequence) }
        if let inFlight = byText.updateValue(call, forKey: requestID) {
            byText[requestID] = inFlight
            return inFlight
        }
        return nil
    }

    /// Takes out and returns the call pending under `requestID`, if any.
    mutating func remove(_ requestID: String) -> PendingCall? {
        if let sequence = sequence(of: requestID) { return bySequence.remove(sequence) }
        return byText.removeValue(forKey: requestID)
    }

    /// The sequence number of `requestID` when it is one of this client's own ids as
    /// ``CompactRequestID`` writes them: the prefix, then 1 to 11 base-64 digits with no
    /// leading zero digit (`A`), within 64 bits. Only that one spelling maps to a number, so two
    /// different ids never share one.
    func sequence(of requestID: String) -> UInt64? {
        var requestID = requestID
        return requestID.withUTF8 { bytes -> UInt64? in
            let digits = bytes.count - ownPrefix.count
            guard digits >= 1, digits <= 11, bytes.starts(with: ownPrefix) else { return nil }
            let first = bytes[ownPrefix.count]
            guard digits == 1 || first != UInt8(ascii: "A") else { return nil }
            var value: UInt64 = 0
            for byte in bytes[ownPrefix.count...] {
                guard let digit = Self.digit(byte), value >> 58 == 0 else { return nil }
                value = value << 6 | digit
            }
            return value
        }
    }

    /// The value of one digit of ``CompactRequestID``'s alphabet.
    private static func digit(_ byte: UInt8) -> UInt64? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt64(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt64(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
