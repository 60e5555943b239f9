import ActionWire

/// A connection's routing id as text, for names (a Majordomo worker's, a Majordomo request's
/// id) and for logs.
enum RoutingIDText {
    /// Hex, or `h` and a hash when long: a name has at most 255 bytes.
    static func of(_ routingID: [UInt8]) -> String {
        routingID.count <= 32 ? HexText.of(routingID) : "h" + String(InputDigest.of(routingID), radix: 16)
    }
}
