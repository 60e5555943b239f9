import Foundation

/// A number with a unit on the command line (`50MB`, `24h`), read and written with a table of
/// units: what ``ByteSize`` and ``DurationArgument`` share.
enum UnitNumber {
    /// `argument` as a number times its unit's scale (a bare number has the unit `""`); `nil`
    /// when it is not a non-negative finite number with a unit the table has (any case).
    static func value(of argument: String, scales: [String: Double]) -> Double? {
        let text = argument.trimmingCharacters(in: .whitespaces)
        let digits = text.prefix { $0.isNumber || $0 == "." }
        let unit = text.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard let number = Double(digits), number >= 0, let scale = scales[unit] else { return nil }
        let value = number * scale
        return value.isFinite ? value : nil
    }

    /// `value` with the largest unit of `units` (largest first) that divides it, else with `fallback`.
    static func text(of value: Int64, units: [(name: String, size: Int64)], fallback: String) -> String {
        for unit in units where value >= unit.size && value % unit.size == 0 {
            return "\(value / unit.size)\(unit.name)"
        }
        return "\(value)\(fallback)"
    }
}
