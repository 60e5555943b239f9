/// Which worker hosts a session, and when the session last had a request sent or answered.
///
/// A class: `lastUsed` changes on every request of the session, in place, rather than through
/// the dictionary's `modify` accessor (whose coroutine frames can be heap-allocated).
final class SessionPin {
    @exclusivity(unchecked) var worker: WorkerID
    @exclusivity(unchecked) var lastUsed: ContinuousClock.Instant

    init(worker: WorkerID, lastUsed: ContinuousClock.Instant) {
        self.worker = worker
        self.lastUsed = lastUsed
    }
}
