/// Which worker hosts a session, and when the session last had a request sent or answered.
struct SessionPin {
    var worker: WorkerID
    var lastUsed: ContinuousClock.Instant
}
