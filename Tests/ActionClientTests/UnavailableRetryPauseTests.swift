@testable import ActionClient
import Testing

/// A call refused `unavailable` goes again after a pause: short at first (a new group leader's
/// standby catches up within tens of milliseconds), doubling while refusals go on.
@Suite("Pause after unavailable")
struct UnavailableRetryPauseTests {
    @Test func thePauseStartsShortAndDoublesUpToTheLimit() {
        let pauses = (0..<7).map { ClientDriver.unavailableRetryPause(after: $0) }
        #expect(pauses == [.milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(200),
                           .milliseconds(200), .milliseconds(200)])
        #expect(ClientDriver.unavailableRetryPause(after: 1_000) == ClientDriver.unavailableRetryPauseLimit)
    }
}
