import ArgumentParser
import Foundation

/// A duration on the command line: a number with a unit (`500ms`, `30s`, `15m`, `24h`, `7d`;
/// a bare number is seconds), or `never`.
struct DurationArgument: ExpressibleByArgument, Equatable, CustomStringConvertible {
    /// `nil`: never.
    let duration: Duration?

    init(_ duration: Duration?) { self.duration = duration }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "never" {
            duration = nil
            return
        }
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        let unit = units.first { text.hasSuffix($0.suffix) && Double(text.dropLast($0.suffix.count)) != nil }
        let number = unit.flatMap { Double(text.dropLast($0.suffix.count)) } ?? Double(text)
        guard let number, number >= 0, number.isFinite else { return nil }
        duration = .milliseconds(Int64((number * (unit?.seconds ?? 1) * 1000).rounded()))
    }

    var description: String {
        guard let duration else { return "never" }
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)] where milliseconds >= size && milliseconds % size == 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
