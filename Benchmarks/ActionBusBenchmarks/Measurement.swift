import Foundation

/// Latency samples in nanoseconds, reported as percentiles.
struct LatencySamples {
    private(set) var nanoseconds: [Int64] = []

    init(capacity: Int) { nanoseconds.reserveCapacity(capacity) }

    mutating func add(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        nanoseconds.append(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func percentile(_ p: Double) -> Double {
        guard !nanoseconds.isEmpty else { return 0 }
        let sorted = nanoseconds.sorted()
        let index = min(sorted.count - 1, Int(Double(sorted.count - 1) * p))
        return Double(sorted[index]) / 1000
    }

    var summary: String {
        String(format: "p50 %.1f µs, p99 %.1f µs, max %.1f µs", percentile(0.5), percentile(0.99), percentile(1))
    }
}

/// Runs `body` and returns its duration.
func measure(_ body: () throws -> Void) rethrows -> Duration {
    let start = ContinuousClock.now
    try body()
    return ContinuousClock.now - start
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// Collects result lines and writes them to standard output and a file.
final class Report {
    private var lines: [String] = []

    func add(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        lines.append(line)
    }

    func write(to path: String) throws {
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
