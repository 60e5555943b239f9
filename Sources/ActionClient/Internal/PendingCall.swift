import ActionWire

/// A perform waiting for its outcome, owned by the client's I/O loop.
struct PendingCall {
    let request: WireRequest
    let timeout: Duration
    let deadline: ContinuousClock.Instant
    var lastSent: ContinuousClock.Instant
    var accepted = false
    /// Whether the last-chance resend went out (see `ClientDriver.sweepPending`).
    var polled = false
    let deliver: @Sendable (Result<WireOutcome, ActionBusError>) -> Void
}
