/// Where a queued request can go now, or what it waits for.
enum DispatchChoice {
    case worker(WorkerRecord)
    /// Its session's host: for a credit there, or for what the session still runs there.
    case waitForHost(WorkerID)
    /// Any worker serving its action with a free credit.
    case waitForAny
}
