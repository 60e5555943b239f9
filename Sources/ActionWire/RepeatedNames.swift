#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names a run of records decoded one after another repeats, as the record before had
/// them: a batch's requests mostly share an action and a session, and a RESULT's outcomes a
/// worker. A name whose bytes equal the remembered ones is taken as the `String` made for
/// them, neither checked nor made again (each is a scan and, past 15 bytes, an allocation).
///
/// Keep one for the records of one message: it holds a slice of the last message it saw.
package struct RepeatedNames {
    /// One field's last name: the bytes it was read from, and the name they made once checked.
    struct Remembered {
        private var bytes: ArraySlice<UInt8> = []
        private var name: String?

        /// The name made before from bytes equal to `frame`, if any.
        func name(for frame: ArraySlice<UInt8>) -> String? {
            guard let name, frame.count == bytes.count else { return nil }
            let equal = frame.withUnsafeBytes { new in
                bytes.withUnsafeBytes { old in new.count == 0 || memcmp(new.baseAddress!, old.baseAddress!, new.count) == 0 }
            }
            return equal ? name : nil
        }

        /// Remembers `name`, which passed every check its field makes, as read from `frame`.
        mutating func remember(_ name: String, readFrom frame: ArraySlice<UInt8>) {
            bytes = frame
            self.name = name
        }
    }

    var action = Remembered()
    var session = Remembered()
    var worker = Remembered()

    package init() {}
}

extension FrameReader {
    /// A name (``name(_:allowEmpty:)``) that `remembered` keeps for the next record: taken from
    /// it when the bytes repeat. `isValid` is any check the field makes beyond a name's; a name
    /// is remembered only once it passed them all.
    mutating func name(
        _ field: String, allowEmpty: Bool = false, remembering remembered: inout RepeatedNames.Remembered,
        isValid: (String) throws(WireError) -> Void = { _ throws(WireError) in }
    ) throws(WireError) -> String {
        let frame = try next(field)
        if let known = remembered.name(for: frame) { return known }
        let command = self.command
        let name = try WireName.validate(frame, field: "\(command) \(field)", limits: limits, allowEmpty: allowEmpty)
        try isValid(name)
        remembered.remember(name, readFrom: frame)
        return name
    }
}
