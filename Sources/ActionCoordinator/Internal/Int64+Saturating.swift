/// Saturating arithmetic on ``ClockOffset``s and durations in nanoseconds: a deadline of never
/// (`.max`) or one read back from a journal centuries past must stay on its side, not wrap round.
extension Int64 {
    /// `self + other`, or the bound on the side it overflowed to.
    func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }

    /// `self - other`, or the bound on the side it overflowed to (an overflow of a difference
    /// has the sign of `self`).
    func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (self < 0 ? .min : .max) : difference
    }
}
