/// Where a ``LaneScheduler`` sends queued requests: what decides, for each, which worker takes it.
protocol LaneDispatchTarget {
    /// Whether any worker has a free credit now.
    var hasCredit: Bool { get }
    /// Where `pending` can go now, or what it waits for.
    func choose(for pending: PendingRequest) -> DispatchChoice
    /// Sends `pending`, just taken off its lane, to `worker`.
    func send(_ pending: PendingRequest, to worker: WorkerRecord)
}
