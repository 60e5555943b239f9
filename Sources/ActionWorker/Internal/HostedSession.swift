import ActionCore

/// An ActionSession the worker hosts for one session name, with what keeps it alive.
///
/// A class: it is changed on every request, in place, rather than through the dictionary's
/// `modify` accessor (whose coroutine frames can be heap-allocated). Only the worker's I/O
/// thread touches its fields, so they skip the runtime's exclusivity check, which every access
/// to a class's stored property otherwise makes (several a request).
final class HostedSession {
    let session: ActionSession
    @exclusivity(unchecked) var running = 0
    @exclusivity(unchecked) var lastUsed: ContinuousClock.Instant
    /// Its queue holds its work until the message being started is done (the worker's
    /// `startingBatch`): set and cleared on the worker's I/O thread.
    @exclusivity(unchecked) var isHoldingScheduling = false

    init(session: ActionSession, lastUsed: ContinuousClock.Instant) {
        self.session = session
        self.lastUsed = lastUsed
    }
}
