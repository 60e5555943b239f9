/// Durations as whole units by integer arithmetic, for ActionCore and the coordinator: dividing
/// one `Duration` by another goes through 128-bit division and a `Double`, and the hot paths
/// took one or two per request. All saturate far beyond any deadline.
extension Duration {
    /// Whole milliseconds, rounded toward positive infinity.
    @usableFromInline
    package var millisecondsRoundedUp: Int64 { milliseconds(roundingUp: true) }

    /// Whole milliseconds, rounded toward negative infinity.
    package var millisecondsRoundedDown: Int64 { milliseconds(roundingUp: false) }

    /// Whole nanoseconds, truncated.
    package var wholeNanoseconds: Int64 { whole(per: 1_000_000_000, roundingUp: nil) }

    @usableFromInline
    func milliseconds(roundingUp: Bool) -> Int64 { whole(per: 1_000, roundingUp: roundingUp) }

    /// The duration in units of which a second holds `unitsPerSecond`: truncated when
    /// `roundingUp` is `nil`, else rounded up or down.
    @usableFromInline
    func whole(per unitsPerSecond: Int64, roundingUp: Bool?) -> Int64 {
        let (seconds, attoseconds) = components
        let attosecondsPerUnit = 1_000_000_000_000_000_000 / unitsPerSecond
        // Attoseconds share the seconds' sign, and dividing truncates toward zero: only a part
        // on the other side of zero from the rounding needs a nudge.
        var fraction = attoseconds / attosecondsPerUnit
        if let roundingUp, attoseconds % attosecondsPerUnit != 0 {
            if roundingUp && attoseconds > 0 { fraction += 1 }
            if !roundingUp && attoseconds < 0 { fraction -= 1 }
        }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: unitsPerSecond)
        let (total, overflowAgain) = whole.addingReportingOverflow(fraction)
        guard !overflow && !overflowAgain else { return seconds > 0 ? .max : .min }
        return total
    }
}
