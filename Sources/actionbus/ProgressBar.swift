import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress bar on standard error, for `perform --count` and `bench` on a terminal:
/// `[#########...........]  4 512/10 000  45%  12 034/s  2 failed`. Drawn at most ten times a
/// second; cleared before other output so lines never mix with it.
struct ProgressBar {
    let total: Int
    /// Drawn only on a terminal, and never with `--json`.
    let isEnabled: Bool
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var isShown = false

    init(total: Int, json: Bool) {
        self.total = total
        isEnabled = !json && total > 1 && isatty(STDERR_FILENO) == 1
    }

    /// Redraws with `done` of `total` finished (at most every 100 ms unless `force`).
    mutating func update(done: Int, failed: Int = 0, force: Bool = false) {
        guard isEnabled else { return }
        let now = ContinuousClock.now
        if !force, let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        isShown = true
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + Self.line(done: done, failed: failed, total: total, elapsed: now - started)).utf8))
    }

    /// Erases the bar (before other output, or at the end).
    mutating func clear() {
        guard isShown else { return }
        isShown = false
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// The bar's text.
    static func line(done: Int, failed: Int, total: Int, elapsed: Duration, width: Int = 24) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Int(Double(done) / seconds) : 0
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
        text += "  \(done)/\(total)  \(Int(fraction * 100))%  \(rate)/s"
        if failed > 0 { text += "  \(failed) failed" }
        return text
    }
}
