import ArgumentParser
import Foundation

/// A duration on the command line: a number with a unit (`500ms`, `30s`, `15m`, `24h`, `7d`;
/// a bare number is seconds), or `never`.
struct DurationArgument: ExpressibleByArgument, Equatable, CustomStringConvertible {
    /// `nil`: never.
    let duration: Duration?

    init(_ duration: Duration?) { self.duration = duration }

    init?(argument: String) {
        if argument.trimmingCharacters(in: .whitespaces).lowercased() == "never" {
            duration = nil
            return
        }
        guard let seconds = UnitNumber.value(of: argument, scales: Self.scales) else { return nil }
        duration = .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Seconds per unit; a bare number is seconds.
    private static let scales: [String: Double] = ["": 1, "ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400]

    var description: String {
        guard let duration else { return "never" }
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return UnitNumber.text(
            of: milliseconds, units: [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)], fallback: "ms"
        )
    }

    var defaultValueDescription: String { description }

    static var defaultCompletionKind: CompletionKind { .default }
}
