/// Identifies an action stack within one ``ActionStackTracker``; encodes as a plain number.
public struct ActionStackID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The numeric value; tracker ids start at 1 and increase.
    public let rawValue: UInt64

    /// Wraps a numeric value.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Orders ids by creation.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The numeric value as text.
    public var description: String { String(rawValue) }
}
