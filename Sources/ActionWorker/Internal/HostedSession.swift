import ActionCore

/// An ActionSession the worker hosts for one session name, with what keeps it alive.
///
/// A class: it is changed on every request, in place, rather than through the dictionary's
/// `modify` accessor (whose coroutine frames can be heap-allocated).
final class HostedSession {
    let session: ActionSession
    var running = 0
    var lastUsed: ContinuousClock.Instant

    init(session: ActionSession, lastUsed: ContinuousClock.Instant) {
        self.session = session
        self.lastUsed = lastUsed
    }
}
