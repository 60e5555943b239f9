import ActionWire

/// A perform waiting for its outcome, owned by the client's I/O loop.
struct PendingCall {
    let request: WireRequest
    let timeout: Duration
    let deadline: ContinuousClock.Instant
    /// Submission order: requests (re)sent together go out in it, so a session's requests keep
    /// their order across resends.
    var order: UInt64 = 0
    /// Sent and not yet answered: it counts against the client's window.
    var isOutstanding = false
    /// Whether the last-chance resend went out (see `ClientDriver.lastChance`).
    var polled = false
    let deliver: @Sendable (Result<WireOutcome, ActionBusError>) -> Void
}
