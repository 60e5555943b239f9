import ActionJournal
import ActionWire
import Logging
import ZeroMQ

/// What a batch of the loop decided, held until it may leave: the batch's journal records, and
/// the replies and stream events that must reach no one before those records are durable.
///
/// A batch is one socket's readable messages or one timer tick. Without a journal, its output
/// leaves when it ends. With one, the ``JournalWriter`` commits its records on the journal's
/// own thread (group commit: one `fdatasync` for every batch handed over meanwhile) and gives
/// the output back, batch by batch in order, while the loop goes on reading and routing.
/// Holding replies to the batch's end also makes each client's ACCEPTEDs of the batch one
/// message. Loop thread only.
final class CommitGate {
    /// The journal's thread; `nil` without a data directory.
    private let journalWriter: JournalWriter?
    /// The journal file, until its recovery is restored into the core.
    private var journalFile: RequestJournal?
    private let logger: Logger
    private unowned let loop: IOLoop<CoordinatorDriver>
    /// The records of the batch being handled, for the journal.
    @exclusivity(unchecked) private var records: [JournalRecord] = []
    /// What the batch being handled will send once its records are durable.
    @exclusivity(unchecked) private var held = HeldOutput()
    /// Where each client's ACCEPTEDs of this batch are in `held.acceptances`.
    @exclusivity(unchecked) private var acceptanceIndex: [ClientAddress: Int] = [:]
    @exclusivity(unchecked) private var compactionRunning = false
    /// A commit failed: nothing more passes (the coordinator stops).
    @exclusivity(unchecked) private(set) var hasFailed = false

    /// Opens the journal in the configured data directory, if any (recovering what it holds,
    /// which ``restore(into:)`` hands to the core), and starts its thread.
    init(configuration: CoordinatorConfiguration, loop: IOLoop<CoordinatorDriver>, context: ZMQContext, logger: Logger) throws {
        self.loop = loop
        self.logger = logger
        // A standby copies the journal: with none, it would be configured and silently unused.
        guard configuration.standbys.isEmpty || configuration.dataDirectory != nil else {
            throw JournalError("standbys \(configuration.standbys) need a journal to replicate: set a data directory, or no standbys")
        }
        let journalFile = try configuration.dataDirectory.map {
            try RequestJournal(directory: $0, compactionBytes: configuration.journalCompactionBytes)
        }
        self.journalFile = journalFile
        do {
            replication = try journalFile.flatMap { _ in try Self.replication(configuration, loop: loop, context: context, logger: logger) }
        } catch {
            journalFile?.close()
            throw error
        }
        // Its recovery is read on the loop, before the writer's thread ever touches it.
        journalWriter = journalFile.map { [replication] in
            // Weak: the writer's thread may end a commit after the loop has gone.
            JournalWriter(
                journal: $0, replication: replication, recordsMetrics: configuration.recordsMetrics,
                diskMeasuringStep: Self.diskMeasuringStep(minFreeDiskBytes: configuration.minFreeDiskBytes)
            ) { [weak loop] in
                loop?.execute { driver, _ in driver.releaseCommitted() }
            }
        }
    }

    var isJournaling: Bool { journalWriter != nil }

    /// Whether a write to the journal's file has been under way for longer than `limit`.
    func journalStalled(at now: ContinuousClock.Instant, limit: Duration) -> Bool {
        journalWriter?.isStalled(at: now, limit: limit) ?? false
    }

    /// The standbys' links, when there are standbys.
    let replication: StandbyReplication?

    private static func replication(
        _ configuration: CoordinatorConfiguration, loop: IOLoop<CoordinatorDriver>, context: ZMQContext, logger: Logger
    ) throws -> StandbyReplication? {
        guard !configuration.standbys.isEmpty else { return nil }
        return try StandbyReplication(
            endpoints: configuration.standbys, timeout: configuration.standbyTimeout, standbyOptional: configuration.standbyOptional,
            term: configuration.leadership, curve: configuration.curve, context: context, logger: logger
        ) { [weak loop] status in
            loop?.execute { driver, _ in driver.replicationChanged(status) }
        }
    }

    /// Has the journal's thread send the whole journal to standbys that need it (started,
    /// restarted, or behind). Called by the tick: commits under way do it themselves.
    func serveCatchUps() {
        // With commits under way the one at the journal does it (and a thread blocked waiting
        // for a standby must not gather a block per tick).
        guard let replication, let journalWriter, journalWriter.inFlight == 0, replication.needsCatchUp else { return }
        journalWriter.serveCatchUps()
    }

    /// How far the journal grows between measurements of its disk's free space: an eighth of
    /// the watermark's margin (at least 64 KiB), so at most that much of it goes between a
    /// fast writer's checks; `nil` when the watermark is off.
    static func diskMeasuringStep(minFreeDiskBytes: Int) -> Int? {
        minFreeDiskBytes > 0 ? max(64 << 10, minFreeDiskBytes / 8) : nil
    }

    /// Gives the core what the journal holds, before anything is read from the sockets.
    func restore(into core: CoordinatorCore) {
        guard let journalFile else { return }
        let recovery = journalFile.recovery
        core.restore(recovery, now: .now)
        logger.info("journal opened", metadata: [
            "journal.directory": "\(journalFile.directory)", "journal.bytes": "\(journalFile.fileBytes)",
            "journal.unfinished": "\(recovery.unfinished.count)", "journal.finished": "\(recovery.finished.count)",
        ])
        if recovery.skippedRecords > 0 {
            logger.warning("journal had whole records that do not decode (names the wire rules reject), skipped", metadata: [
                "journal.skippedRecords": "\(recovery.skippedRecords)",
            ])
        }
        if recovery.discardedBytes > 0 {
            logger.warning("journal had a torn end, cut off", metadata: ["journal.discardedBytes": "\(recovery.discardedBytes)"])
        }
        journalFile.releaseRecovery()
        self.journalFile = nil
        if let replication { core.replicationChanged(replication.status) }
        journalWriter?.serveCatchUps()
    }

    // MARK: Holding

    /// Keeps a record for the batch's commit (only called with a journal).
    func append(_ record: JournalRecord) {
        records.append(record)
    }

    /// Holds a reply to the batch's end; an ActionBus client's ACCEPTEDs join its first of
    /// the batch.
    func hold(_ reply: ClientReply, to client: ClientAddress) {
        if case .accepted(let requestIDs) = reply, client.protocol == .actionBus {
            if let index = acceptanceIndex[client] {
                held.acceptances[index].requestIDs.append(contentsOf: requestIDs)
            } else {
                acceptanceIndex[client] = held.acceptances.count
                held.acceptances.append((client, requestIDs))
            }
        } else {
            held.replies.append((reply, client))
        }
    }

    /// Holds an instruction to a worker to the batch's commit.
    func hold(_ instruction: WorkerInstruction, to worker: WorkerID) {
        held.workerInstructions.append((instruction, worker))
    }

    /// Holds a stream event to the batch's commit.
    func hold(_ event: StreamMessage) {
        held.events.append(event)
    }

    /// Holds the release of the stream's positions up to `position` to the batch's commit.
    func holdStreamPosition(_ position: UInt64) {
        held.streamPosition = position
    }

    // MARK: Passing

    /// Ends a batch. Returns its output when it may leave now: without a journal, or with
    /// nothing to commit and no earlier batch still at the journal to keep behind (a batch
    /// without records goes through the journal's thread while others are there, so replies
    /// keep their order). Otherwise hands it to the journal's thread and returns `nil`, as it
    /// does for a batch that decided nothing (a tick, a batch of heartbeats).
    func endBatch() -> HeldOutput? {
        let output = held
        held = HeldOutput()
        acceptanceIndex.removeAll(keepingCapacity: true)
        if records.isEmpty && output.isEmpty { return nil }
        if let journalWriter, !records.isEmpty || journalWriter.inFlight > 0 {
            journalWriter.commit(records, releasing: output)
            records.removeAll(keepingCapacity: true)
            return nil
        }
        return output
    }

    /// The batches whose commits have ended since last asked, in commit order.
    func takeCommitted() -> [JournalWriter.Finished] {
        journalWriter?.takeFinished() ?? []
    }

    /// A commit failed: drops what the batch being handled holds, and lets nothing through from
    /// here on. What it decided is not on disk, so none of it may be acknowledged.
    func fail() {
        hasFailed = true
        held = HeldOutput()
    }

    // MARK: The journal file

    /// Takes the snapshot of what the core holds, on the loop, and has the journal's thread
    /// write it: records handed over before it are in the old file and their effect in the
    /// snapshot; records handed over after it go to the new file. One at a time.
    func compact(_ core: CoordinatorCore) {
        guard let journalWriter, !compactionRunning else { return }
        compactionRunning = true
        let started = ContinuousClock.now
        let logger = self.logger, loop = self.loop
        journalWriter.compact(core.encodedJournalSnapshot(now: started)) { result in
            switch result {
            case .success(let sizes):
                logger.info("journal compacted", metadata: [
                    "journal.bytesBefore": "\(sizes.before)", "journal.bytesAfter": "\(sizes.after)",
                    "journal.duration": "\(ContinuousClock.now - started)",
                ])
            case .failure(let error):
                logger.error("journal compaction failed; appending to the old file, next attempt once it has grown by the threshold again", metadata: ["journal.error": "\(error)"])
            }
            loop.execute { driver, _ in
                driver.commitGate.compactionEnded()
                // A compaction frees space: the watermark may let requests in again at once.
                driver.measureDisk(now: .now)
            }
        }
    }

    private func compactionEnded() {
        compactionRunning = false
    }

    /// Waits for every commit and compaction handed over so far; a commit waiting for a
    /// standby gives up after the standby timeout (its replies are withheld).
    func waitForAll() {
        replication?.beginShutdown()
        journalWriter?.waitForAll()
    }

    /// Closes the journal once everything handed over is written.
    func close() {
        journalWriter?.close()
    }
}
