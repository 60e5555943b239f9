import ActionCore

/// Instants held as nanoseconds after one epoch of this process: an `Int64` where an
/// `Instant` (a type of the standard library that it may change, so copied and compared
/// through its value witnesses) would cost calls on every copy of a table's entry.
enum ClockOffset {
    static let epoch = ContinuousClock.now

    /// `instant`, as nanoseconds after ``epoch``.
    static func of(_ instant: ContinuousClock.Instant) -> Int64 {
        (instant - epoch).wholeNanoseconds
    }

    /// The instant `offset` nanoseconds after ``epoch``.
    static func instant(_ offset: Int64) -> ContinuousClock.Instant {
        epoch.advanced(by: .nanoseconds(offset))
    }
}
