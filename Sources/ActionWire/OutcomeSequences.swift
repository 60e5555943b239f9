/// The sequence numbers of one published outcome, one per filter scope.
///
/// A subscriber that filters by session sees only that session's outcomes, so a single
/// stream-wide counter would show gaps that are not losses. Each scope has its own counter:
/// the subscriber checks the one matching its filter, and any jump in it is a real drop.
package struct OutcomeSequences: Sendable, Hashable {
    /// The filter scopes that have a counter.
    package enum Scope: Int, Sendable, CaseIterable {
        /// Every outcome.
        case all
        /// Outcomes of one feature.
        case feature
        /// Outcomes of one action.
        case action
        /// Outcomes of one session.
        case session
        /// Outcomes of one feature in one session.
        case sessionFeature
        /// Outcomes of one action in one session.
        case sessionAction
    }

    /// The counters, indexed by ``Scope``.
    package var values: [UInt64]

    /// Sequence numbers in ``Scope`` order.
    package init(_ values: [UInt64]) {
        precondition(values.count == Scope.allCases.count)
        self.values = values
    }

    /// The number for `scope`.
    package subscript(scope: Scope) -> UInt64 { values[scope.rawValue] }

    static let byteCount = Scope.allCases.count * 8

    var bytes: [UInt8] { values.flatMap(\.bigEndianBytes) }

    init(bytes: ArraySlice<UInt8>) {
        values = Scope.allCases.map { bytes.bigEndianInteger(at: $0.rawValue * 8, as: UInt64.self) }
    }
}
