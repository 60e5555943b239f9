/// The one rule for every name that crosses the bus: action, session, request id, worker,
/// content type, error code, and a Majordomo service (which becomes an action name).
///
/// A name is UTF-8, at most ``WireLimits/maxNameBytes`` long, and has no control character
/// (below 0x20, or 0x7F): the outcome stream separates topic parts with 0x1F, and the journal
/// replays only what this rule accepts, so a name that slipped past it could forge topics or
/// make a journal unreadable.
public enum WireName {
    /// The name in `bytes` as text, or the reason it is not a valid name.
    ///
    /// - Parameter field: what the name is, as error messages call it (`"PERFORM action"`);
    ///   made only for an error message, never on the path that accepts.
    public static func validate<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, field: @autoclosure () -> String, limits: WireLimits = WireLimits(), allowEmpty: Bool = false
    ) throws(WireError) -> String {
        guard bytes.count <= limits.maxNameBytes else {
            throw WireError(.oversize, "\(field()) has \(bytes.count) bytes, limit \(limits.maxNameBytes)")
        }
        guard allowEmpty || !bytes.isEmpty else {
            throw WireError(.invalidField, "\(field()) is empty")
        }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw WireError(.invalidField, "\(field()) contains a control character")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw WireError(.invalidUTF8, "\(field()) is not valid UTF-8")
        }
        return text
    }
}
