@testable import ActionCore
import Testing

/// Whole milliseconds by integer arithmetic, as the deadline timer and a perform's timeout
/// message take them: the same as dividing the `Duration`s and rounding.
@Suite("Duration in whole milliseconds")
struct DurationMillisecondsTests {
    static let durations: [Duration] = [
        .zero, .nanoseconds(1), .nanoseconds(-1), .microseconds(999), .microseconds(1_001),
        .milliseconds(1), .milliseconds(-1), .microseconds(-1_500), .microseconds(1_500),
        .seconds(3) + .nanoseconds(1), .seconds(-3) - .nanoseconds(1), .seconds(86_400 * 365),
    ]

    @Test("rounded up and down as dividing and rounding would", arguments: durations)
    func matchesDivision(_ duration: Duration) {
        let exact = duration / .milliseconds(1)
        #expect(duration.millisecondsRoundedUp == Int64(exact.rounded(.up)))
        #expect(duration.millisecondsRoundedDown == Int64(exact.rounded(.down)))
    }

    @Test("saturates instead of overflowing")
    func saturates() {
        #expect(Duration.seconds(Int64.max).millisecondsRoundedUp == .max)
        #expect(Duration.seconds(Int64.min).millisecondsRoundedDown == .min)
    }
}
