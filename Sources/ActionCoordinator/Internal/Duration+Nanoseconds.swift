extension Duration {
    /// The duration in whole nanoseconds (truncated), saturating far beyond any deadline: for
    /// integer arithmetic where dividing `Duration`s would go through 128-bit division and a
    /// `Double`.
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds > 0 ? .max : .min }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowAgain ? (seconds > 0 ? .max : .min) : total
    }
}
