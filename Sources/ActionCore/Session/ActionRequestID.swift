import Synchronization

/// Identifies one perform of an action within this process; unique and increasing.
public struct ActionRequestID: Hashable, Sendable, Codable, CustomStringConvertible {
    private static let counter = Atomic<UInt64>(0)

    /// The numeric value.
    public let rawValue: UInt64

    /// Wraps a numeric value.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// A new, never used identifier.
    @usableFromInline
    static func next() -> Self {
        Self(rawValue: counter.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    /// The numeric value as text.
    public var description: String { String(rawValue) }
}
