import Foundation

/// What ``FastJSONDecoder`` and ``FastJSONEncoder`` share: both either give exactly what
/// Foundation's coders give, or give up and leave the work to them.
@usableFromInline
enum FastJSON {
    /// Types `JSONDecoder` and `JSONEncoder` handle by rules of their own rather than through
    /// their Codable conformance: always left to Foundation.
    @inlinable
    static func isSpecial<T>(_ type: T.Type) -> Bool {
        type == Data.self || type == Date.self || type == URL.self || type == Decimal.self
    }

    /// Shared by every decoder, encoder and container of one attempt: whether any of them gave up.
    ///
    /// The attempt's root decoder or encoder is the attempt itself (a subclass), so an attempt
    /// costs no allocation of its own: the one the root needs anyway.
    class Attempt {
        var gaveUp = false
    }

    /// The error every container throws when it gives up; the attempt's result is not used then.
    struct GaveUp: Error {}

    /// An array index in a coding path.
    struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }

        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}
