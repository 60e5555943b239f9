/// The one rule for every name that crosses the bus: action, session, request id, worker,
/// content type, error code, and a Majordomo service (which becomes an action name).
///
/// A name is UTF-8, at most ``WireLimits/maxNameBytes`` long, and has no control character
/// (below 0x20, or 0x7F): the outcome stream separates topic parts with 0x1F, and the journal
/// replays only what this rule accepts, so a name that slipped past it could forge topics or
/// make a journal unreadable.
package enum WireName {
    /// The name in `bytes` as text, or the reason it is not a valid name.
    ///
    /// - Parameter field: what the name is, as error messages call it (`"PERFORM action"`);
    ///   made only for an error message, never on the path that accepts.
    package static func validate<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, field: @autoclosure () -> String, limits: WireLimits = WireLimits(), allowEmpty: Bool = false
    ) throws(WireError) -> String {
        try check(bytes, field: field(), limits: limits, allowEmpty: allowEmpty)
        // Valid UTF-8, as checked: nothing to repair.
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `name` has the form of an action's full name (`Feature.action`): it has a dot.
    ///
    /// A scan of its UTF-8: `String.contains(".")` goes through Foundation's `NSString` search
    /// wherever Foundation is imported, which cost a client 2 % of its CPU per request.
    package static func isActionName(_ name: String) -> Bool {
        name.utf8.contains(UInt8(ascii: "."))
    }

    /// Checks `text` by the rule without making anything (a sender checking before it sends).
    package static func check(_ text: String, field: @autoclosure () -> String, allowEmpty: Bool = false) throws(WireError) {
        var text = text
        var failure: WireError?
        // Native strings are contiguous UTF-8: the scan reads them in place.
        text.withUTF8 { bytes in
            do throws(WireError) { try check(bytes, field: field(), limits: WireLimits(), allowEmpty: allowEmpty) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Whether `bytes` is a non-empty name by the rule, within `limits`: what a decoder taking
    /// it as a name would accept, for a reader that keeps the bytes rather than a `String`.
    package static func isValid(_ bytes: UnsafeRawBufferPointer, limits: WireLimits) -> Bool {
        // As typed bytes, which the check scans in place.
        let typed = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        return (try? check(typed, field: "", limits: limits, allowEmpty: false)) != nil
    }

    /// Checks `bytes` by the rule.
    static func check<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, field: @autoclosure () -> String, limits: WireLimits, allowEmpty: Bool
    ) throws(WireError) {
        guard bytes.count <= limits.maxNameBytes else {
            throw WireError(.oversize, "\(field()) has \(bytes.count) bytes, limit \(limits.maxNameBytes)")
        }
        guard allowEmpty || !bytes.isEmpty else {
            throw WireError(.invalidField, "\(field()) is empty")
        }
        // One pass over contiguous bytes finds control characters and whether the name is all
        // ASCII (nearly always): ASCII is valid UTF-8 as it stands and is copied, not validated.
        let scan = bytes.withContiguousStorageIfAvailable(scan) ?? scan(Array(bytes))
        guard !scan.hasControlCharacter else {
            throw WireError(.invalidField, "\(field()) contains a control character")
        }
        // ASCII is valid UTF-8 as it stands; anything else is validated.
        guard scan.isASCII || String(validating: bytes, as: UTF8.self) != nil else {
            throw WireError(.invalidUTF8, "\(field()) is not valid UTF-8")
        }
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (hasControlCharacter: Bool, isASCII: Bool) {
        var isASCII = true
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F { return (true, false) }
            if byte >= 0x80 { isASCII = false }
        }
        return (false, isASCII)
    }

    private static func scan(_ bytes: [UInt8]) -> (hasControlCharacter: Bool, isASCII: Bool) {
        bytes.withUnsafeBufferPointer(scan)
    }
}
