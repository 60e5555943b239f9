import ArgumentParser

/// A size given on the command line: bytes, or a number with a unit: `KB`, `MB`, `GB`, `TB`
/// (powers of 1000) or `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024), in any case, as `df -H`
/// and `df -h` print them; `50MB`, `1.5GiB`, `65536`.
struct ByteSize: ExpressibleByArgument, Equatable, CustomStringConvertible {
    let bytes: Int

    init(bytes: Int) {
        self.bytes = bytes
    }

    init?(argument: String) {
        guard let bytes = UnitNumber.value(of: argument, scales: Self.scales)?.rounded(), bytes < 0x1p62 else { return nil }
        self.bytes = Int(bytes)
    }

    private static let scales: [String: Double] = [
        "": 1, "b": 1,
        "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
        "kib": 0x1p10, "mib": 0x1p20, "gib": 0x1p30, "tib": 0x1p40,
    ]

    var description: String {
        UnitNumber.text(of: Int64(bytes), units: [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)], fallback: "")
    }

    var defaultValueDescription: String { description }
}
