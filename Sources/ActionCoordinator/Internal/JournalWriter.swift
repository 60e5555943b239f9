import ActionJournal
import Dispatch
import Locking

/// The journal's own thread: writes and syncs the loop's batches of records and runs
/// compactions, so a slow `fdatasync` or a large compaction never holds up the coordinator's
/// I/O loop. The loop keeps reading, routing and dispatching meanwhile; only the replies that
/// wait for a batch's records wait for its commit.
///
/// Group commit: every batch handed over while a commit is under way waits for the next, and
/// that one writes and syncs them all together. A batch a commit each kept the journal's
/// capacity at one loop turn per `fdatasync`: a disk slower than the turns (10 ms a sync,
/// a turn every 2.5 ms) made a backlog that only grew, and every reply behind it waited longer.
///
/// Batches commit in the order they were handed over, and their replies come back to the loop
/// in that order (``takeFinished()``). A compaction stays where it was asked for among the
/// batches: those before it are written before it, those after it after (the snapshot it writes
/// holds the first and not the second). The `RequestJournal` is touched only on `queue`.
final class JournalWriter: @unchecked Sendable {
    /// A batch whose commit has ended, with what waited for it.
    struct Finished: Sendable {
        let output: HeldOutput
        let failure: JournalError?
        let needsCompaction: Bool
        /// The free bytes of the journal's file system, measured after this commit when the
        /// journal had grown by the measuring step since the last measurement.
        let freeDiskBytes: Int?
        /// Written here, but a standby never acknowledged it before the coordinator stopped:
        /// its output must not leave (clients resend to the coordinator that serves next).
        var unreplicated = false
    }

    /// What the loop handed over, in order, for the journal's thread to take.
    private enum Work {
        case batch(records: [JournalRecord], output: HeldOutput)
        case compaction(JournalSnapshot, done: @Sendable (Result<(before: Int, after: Int), JournalError>) -> Void)
    }

    private struct Waiting {
        var work: [Work] = []
        /// A block that takes the waiting work is on the queue and has not taken it yet.
        var isScheduled = false
    }

    private let journal: RequestJournal
    /// The standbys each commit is sent to and waits for; `nil` without any.
    private let replication: StandbyReplication?
    /// Records each commit's duration through swift-metrics.
    private let recordsMetrics: Bool
    /// Called from the journal's thread after each commit, so the loop comes to take what it
    /// released (``takeFinished()``).
    private let wake: @Sendable () -> Void
    private let queue = DispatchQueue(label: "actionbus.coordinator.journal")
    private let waiting = Locked(Waiting())
    private let finished = Locked<[Finished]>([])
    /// Since when the journal's thread has been writing its own file (a commit's write and
    /// `fdatasync`, a compaction), not waiting for standbys: `nil` between writes. A disk that
    /// stalls shows here, and a group leader must then give up its lease.
    private let writingSince = Locked<ContinuousClock.Instant?>(nil)
    /// Batches handed over and not yet taken back (loop thread only).
    private(set) var inFlight = 0
    /// How many bytes the journal may grow between two measurements of its file system's free
    /// space (`nil`: never measured here): a fast writer cannot run through the disk
    /// watermark's margin between the loop's timed measurements.
    private let diskMeasuringStep: Int?
    /// The journal's size at the last measurement (journal's thread only).
    private var bytesAtDiskMeasurement = 0

    init(
        journal: RequestJournal, replication: StandbyReplication? = nil, recordsMetrics: Bool = false, diskMeasuringStep: Int? = nil,
        wake: @escaping @Sendable () -> Void
    ) {
        self.journal = journal
        self.replication = replication
        self.recordsMetrics = recordsMetrics
        self.diskMeasuringStep = diskMeasuringStep
        self.wake = wake
    }

    /// Appends `records`, commits them (with whatever else waits by then), then makes `output`
    /// available to ``takeFinished()`` and wakes the loop, once for the group it went with.
    /// Loop thread only, as are ``compact(_:done:)`` and ``waitForAll()``.
    func commit(_ records: [JournalRecord], releasing output: HeldOutput) {
        inFlight += 1
        hand(.batch(records: records, output: output))
    }

    /// Rewrites the journal with `live` on the journal's thread, after the batches handed over
    /// before it; `done` gets the sizes before and after, or the error (the journal then keeps
    /// appending to the old file).
    func compact(_ live: JournalSnapshot, done: @escaping @Sendable (Result<(before: Int, after: Int), JournalError>) -> Void) {
        hand(.compaction(live, done: done))
    }

    /// Whether a write to the journal's own file has been under way for longer than `limit`.
    func isStalled(at now: ContinuousClock.Instant, limit: Duration) -> Bool {
        writingSince.withLock { $0 }.map { now - $0 > limit } ?? false
    }

    /// Runs `write` with the time it starts recorded, for ``isStalled(at:limit:)``.
    private func timedWrite<T>(_ write: () throws(JournalError) -> T) throws(JournalError) -> T {
        writingSince.withLock { $0 = .now }
        defer { writingSince.withLock { $0 = nil } }
        return try write()
    }

    /// The batches whose commits ended, in order (loop thread).
    func takeFinished() -> [Finished] {
        let batches = finished.withLock { batches -> [Finished] in
            defer { batches.removeAll() }
            return batches
        }
        inFlight -= batches.count
        return batches
    }

    /// Waits for every commit and compaction handed over so far (by this thread: the loop's).
    func waitForAll() {
        // Work handed over before now is taken by a block already on the queue.
        queue.sync {}
    }

    /// Closes the journal once everything handed over is written.
    func close() {
        queue.sync { self.journal.close() }
        replication?.close()
    }

    /// Sends the whole journal to the standbys that need it, once the commits handed over so
    /// far are done (a standby that starts or asks while nothing is being committed).
    func serveCatchUps() {
        guard let replication else { return }
        queue.async { [self] in replication.serveCatchUps { () throws(JournalError) in try journal.committedFileBytes() } }
    }

    /// Runs `body` on the journal's thread, after what was handed over before: tests hold the
    /// thread with it, to hand batches over while a commit is under way.
    func onJournalThread(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    private func hand(_ work: Work) {
        let schedule = waiting.withLock { waiting -> Bool in
            waiting.work.append(work)
            defer { waiting.isScheduled = true }
            return !waiting.isScheduled
        }
        if schedule { queue.async { [self] in runWaiting() } }
    }

    /// Takes all that waits: runs of batches are committed together, compactions run between
    /// them where they were asked for. Work handed over from here on waits for the next block.
    private func runWaiting() {
        let work = waiting.withLock { waiting -> [Work] in
            waiting.isScheduled = false
            defer { waiting.work.removeAll() }
            return waiting.work
        }
        var group: [HeldOutput] = []
        for item in work {
            switch item {
            case .batch(let records, let output):
                for record in records { journal.append(record) }
                group.append(output)
            case .compaction(let live, let done):
                commit(group)
                group.removeAll()
                let before = journal.fileBytes
                do throws(JournalError) {
                    try timedWrite { () throws(JournalError) in try journal.compact(live) }
                    replication?.replicateCompaction(live.bytes)
                    done(.success((before, journal.fileBytes)))
                } catch {
                    done(.failure(error))
                }
            }
        }
        commit(group)
    }

    /// Commits what the batches of `group` appended (one `fdatasync`), then hands their outputs
    /// back in order and wakes the loop once.
    private func commit(_ group: [HeldOutput]) {
        guard !group.isEmpty else { return }
        var failure: JournalError?
        // Sent before the local sync, so the standbys' syncs run while it does.
        let sequence = journal.hasUncommitted ? replication?.replicate(journal.uncommittedBytes) : nil
        do throws(JournalError) {
            let started = ContinuousClock.now
            try timedWrite { () throws(JournalError) in try journal.commit() }
            if recordsMetrics { CoordinatorMetrics.journalCommitted(in: .now - started) }
        } catch {
            failure = error
        }
        if let replication, let sequence, failure == nil {
            let acknowledged = replication.waitForAcknowledgements(through: sequence) { () throws(JournalError) in
                try journal.committedFileBytes()
            }
            // Stopping with a standby that never acknowledged, or a group leader whose lease may
            // have run out: nothing of the group may be said; the loop counts what it withholds.
            guard acknowledged else {
                finished.withLock { finished in
                    finished += group.map { Finished(output: $0, failure: nil, needsCompaction: false, freeDiskBytes: nil, unreplicated: true) }
                }
                wake()
                return
            }
        }
        // Asked once, after the group's commit: the loop starts one compaction for it.
        let needsCompaction = failure == nil && journal.needsCompaction
        let freeDiskBytes = failure == nil ? measureDiskIfGrown() : nil
        let batches = group.indices.map { index in
            let last = index == group.count - 1
            return Finished(
                output: group[index], failure: failure, needsCompaction: needsCompaction && last, freeDiskBytes: last ? freeDiskBytes : nil
            )
        }
        finished.withLock { $0.append(contentsOf: batches) }
        wake()
    }

    /// The file system's free bytes, when the journal has grown by the measuring step since the
    /// last measurement; one `statvfs` per step, none per commit. A journal that shrank (a
    /// compaction, which the loop measures after) only moves the baseline.
    private func measureDiskIfGrown() -> Int? {
        guard let step = diskMeasuringStep else { return nil }
        let bytes = journal.fileBytes
        if bytes < bytesAtDiskMeasurement { bytesAtDiskMeasurement = bytes }
        guard bytes - bytesAtDiskMeasurement >= step else { return nil }
        bytesAtDiskMeasurement = bytes
        return FileSystemSpace.availableBytes(at: journal.directory)
    }
}
