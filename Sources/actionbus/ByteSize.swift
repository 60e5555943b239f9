import ArgumentParser
import Foundation

/// A size given on the command line: bytes, or a number with a unit: `KB`, `MB`, `GB`, `TB`
/// (powers of 1000) or `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024), in any case, as `df -H`
/// and `df -h` print them; `50MB`, `1.5GiB`, `65536`.
struct ByteSize: ExpressibleByArgument, Equatable, CustomStringConvertible {
    let bytes: Int

    init(bytes: Int) {
        self.bytes = bytes
    }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        let digits = text.prefix { $0.isNumber || $0 == "." }
        let unit = text.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard let number = Double(digits), number >= 0, let scale = Self.scales[unit] else { return nil }
        let bytes = (number * scale).rounded()
        guard bytes < 0x1p62 else { return nil }
        self.bytes = Int(bytes)
    }

    private static let scales: [String: Double] = [
        "": 1, "b": 1,
        "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
        "kib": 0x1p10, "mib": 0x1p20, "gib": 0x1p30, "tib": 0x1p40,
    ]

    var description: String {
        for (unit, scale) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= scale && bytes % scale == 0 {
            return "\(bytes / scale)\(unit)"
        }
        return "\(bytes)"
    }

    var defaultValueDescription: String { description }
}
