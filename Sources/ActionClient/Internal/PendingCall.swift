import ActionWire

/// A perform waiting for its outcome, owned by the client's I/O loop.
///
/// A class: the pending table, the queue of unsent calls and the timers share one object
/// instead of copying the request around, and a timer knows its call is over without a lookup.
final class PendingCall {
    let request: WireRequest
    let timeout: Duration
    let deadline: ContinuousClock.Instant
    /// Submission order: requests (re)sent together go out in it, so a session's requests keep
    /// their order across resends.
    var order: UInt64 = 0
    /// Sent and not yet answered: it counts against the client's window.
    var isOutstanding = false
    /// The coordinator said ACCEPTED for it: recorded (on disk, with a journal).
    var isAccepted = false
    /// Whether the last-chance resend went out (see `ClientDriver.lastChance`).
    var polled = false
    /// Answered, failed or timed out: out of the pending table, its timers and queue entry void.
    var isSettled = false
    let deliver: @Sendable (Result<WireOutcome, ActionBusError>) -> Void

    init(request: WireRequest, timeout: Duration, deadline: ContinuousClock.Instant,
         deliver: @escaping @Sendable (Result<WireOutcome, ActionBusError>) -> Void) {
        self.request = request
        self.timeout = timeout
        self.deadline = deadline
        self.deliver = deliver
    }
}
