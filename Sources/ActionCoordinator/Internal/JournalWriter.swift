import ActionJournal
import Dispatch
import Locking

/// The journal's own thread: writes and syncs each batch's records (group commit) and runs
/// compactions, so a slow `fdatasync` or a large compaction never holds up the coordinator's
/// I/O loop. The loop keeps reading, routing and dispatching meanwhile; only the replies that
/// wait for a batch's records wait for its commit.
///
/// Batches commit in the order they were handed over, and their replies come back to the loop
/// in that order (``takeFinished()``). The `RequestJournal` is touched only on `queue`.
final class JournalWriter: @unchecked Sendable {
    /// A batch whose commit has ended, with what waited for it.
    struct Finished: Sendable {
        let output: HeldOutput
        let failure: JournalError?
        let needsCompaction: Bool
    }

    private let journal: RequestJournal
    /// Records each commit's duration through swift-metrics.
    private let recordsMetrics: Bool
    private let queue = DispatchQueue(label: "actionbus.coordinator.journal")
    private let finished = Locked<[Finished]>([])
    /// Batches handed over and not yet taken back (loop thread only).
    private(set) var inFlight = 0

    init(journal: RequestJournal, recordsMetrics: Bool = false) {
        self.journal = journal
        self.recordsMetrics = recordsMetrics
    }

    /// Appends `records`, commits them, then makes `output` available to ``takeFinished()``
    /// and calls `wake` (from the journal's thread) so the loop comes to take it.
    func commit(_ records: [JournalRecord], releasing output: HeldOutput, wake: @escaping @Sendable () -> Void) {
        inFlight += 1
        // `self`, not the journal, is captured: the writer vouches that only `queue` touches it.
        queue.async { [self] in
            var failure: JournalError?
            do throws(JournalError) {
                let started = ContinuousClock.now
                for record in records { journal.append(record) }
                try journal.commit()
                if recordsMetrics { CoordinatorMetrics.journalCommitted(in: .now - started) }
            } catch {
                failure = error
            }
            let batch = Finished(output: output, failure: failure, needsCompaction: failure == nil && journal.needsCompaction)
            finished.withLock { $0.append(batch) }
            wake()
        }
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

    /// Rewrites the journal with `live` on the journal's thread; `done` gets the sizes before
    /// and after, or the error (the journal then keeps appending to the old file).
    func compact(_ live: JournalSnapshot, done: @escaping @Sendable (Result<(before: Int, after: Int), JournalError>) -> Void) {
        queue.async { [self] in
            let before = journal.fileBytes
            do throws(JournalError) {
                try journal.compact(live)
                done(.success((before, journal.fileBytes)))
            } catch {
                done(.failure(error))
            }
        }
    }

    /// Waits for every commit and compaction handed over so far.
    func waitForAll() {
        queue.sync {}
    }

    /// Closes the journal once everything handed over is written.
    func close() {
        queue.sync { self.journal.close() }
    }
}
