import ActionCore

/// An ActionSession the worker hosts for one session name, with what keeps it alive.
struct HostedSession {
    let session: ActionSession
    var running = 0
    var lastUsed: ContinuousClock.Instant
}
