extension Duration {
    /// The duration in whole milliseconds, rounded toward positive infinity, by integer
    /// arithmetic: `duration / .milliseconds(1)` goes through 128-bit division and a `Double`,
    /// and every perform computed two of them. Saturates past about 292 million years.
    @usableFromInline
    var millisecondsRoundedUp: Int64 { milliseconds(roundingUp: true) }

    /// The duration in whole milliseconds, rounded toward negative infinity (see
    /// ``millisecondsRoundedUp``).
    var millisecondsRoundedDown: Int64 { milliseconds(roundingUp: false) }

    @usableFromInline
    func milliseconds(roundingUp: Bool) -> Int64 {
        let (seconds, attoseconds) = components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        // Attoseconds share the seconds' sign, and dividing truncates toward zero: only a part
        // on the other side of zero from the rounding needs a nudge.
        var fraction = attoseconds / perMillisecond
        if attoseconds % perMillisecond != 0 {
            if roundingUp && attoseconds > 0 { fraction += 1 }
            if !roundingUp && attoseconds < 0 { fraction -= 1 }
        }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let (total, overflowAgain) = whole.addingReportingOverflow(fraction)
        guard !overflow && !overflowAgain else { return seconds > 0 ? .max : .min }
        return total
    }
}
