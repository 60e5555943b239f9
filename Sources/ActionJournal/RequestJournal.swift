import ActionWire
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The coordinator's write-ahead journal: an append-only file of accepted requests and their
/// outcomes in a data directory, so a coordinator killed with `kill -9` resumes what it had
/// accepted.
///
/// Records are buffered by ``append(_:)`` and made durable together by ``commit()`` (one
/// `write` and one `fdatasync`, `F_FULLFSYNC` on Darwin, for everything since the last
/// commit: group commit). The owner says "accepted" only after the commit returns. When the
/// file outgrows its threshold the owner rewrites it with only what is still live
/// (``compact(_:)``).
///
/// A directory is used by one coordinator at a time (an exclusive `flock` on `LOCK`). Not
/// thread-safe: one thread owns it.
package final class RequestJournal {
    /// The data directory.
    package let directory: String
    /// What the file held when it was opened, until ``releaseRecovery()``.
    package private(set) var recovery: JournalRecovery
    /// The file's size in bytes, committed records only.
    package private(set) var fileBytes: Int
    /// Commits made (each one write and one fdatasync).
    package private(set) var commits = 0

    private static let fileName = "journal.log"
    static let header: [UInt8] = Array("ABJOURN1".utf8)
    private let path: String
    private let compactionBytes: Int
    private var nextCompaction: Int
    private var descriptor: Int32
    private var lockDescriptor: Int32
    private var buffer: [UInt8] = []
    /// The file was created on a full file system without its header: the buffer starts with
    /// it, for the first commit (or compaction) to write.
    private var headerDeferred = false
    /// Set by the first failed commit; every later commit throws it.
    private var failure: JournalError?

    /// Opens (or creates) the journal in `directory`, reading everything it holds. A new
    /// journal on a full file system still opens: its header waits for the first commit.
    ///
    /// - Parameter compactionBytes: the size past which ``needsCompaction`` turns true.
    /// - Throws: ``JournalError`` when the directory cannot be created or locked (another
    ///   coordinator uses it), or the file is not an ActionBus journal.
    package init(directory: String, compactionBytes: Int = 64 << 20) throws(JournalError) {
        self.directory = directory
        self.compactionBytes = max(1 << 16, compactionBytes)
        path = (directory as NSString).appendingPathComponent(Self.fileName)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw JournalError("cannot create the data directory \(directory): \(error.localizedDescription)")
        }
        lockDescriptor = try Self.lock(directory)
        do throws(JournalError) {
            let (recovery, validBytes) = try Self.read(path)
            if validBytes == 0 {
                do throws(JournalError) {
                    try Self.writeFile(path, bytes: Self.header)
                } catch where error.isOutOfSpace {
                    // A full disk: start anyway (the owner refuses new work until space
                    // returns), with an empty file whose header the first commit writes. An
                    // empty or cut-short file reads as a new journal, and nothing is
                    // acknowledged before a commit returns.
                    try Self.writeFile(path, bytes: [])
                    headerDeferred = true
                }
            } else if recovery.discardedBytes > 0, truncate(path, off_t(validBytes)) != 0 {
                throw JournalError.system("cannot cut the torn end off", path: path, errno: errno)
            }
            self.recovery = recovery
            fileBytes = headerDeferred ? 0 : max(validBytes, Self.header.count)
            if headerDeferred { buffer = Self.header }
            descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else { throw JournalError.system("cannot open", path: path, errno: errno) }
            nextCompaction = max(self.compactionBytes, 2 * fileBytes)
        } catch {
            closeDescriptor(lockDescriptor)
            throw error
        }
    }

    deinit { close() }

    /// Frees what ``recovery`` holds, once the owner has taken it over.
    package func releaseRecovery() {
        recovery = JournalRecovery()
    }

    /// Whether records are waiting for ``commit()``.
    package var hasUncommitted: Bool { !buffer.isEmpty }

    /// Whether the file has grown past its threshold and should be compacted.
    package var needsCompaction: Bool { fileBytes >= nextCompaction }

    /// Buffers a record; it is durable once ``commit()`` returns.
    package func append(_ record: JournalRecord) {
        record.append(to: &buffer)
    }

    /// The bytes the next ``commit()`` writes, exactly as it writes them: what a leader sends
    /// its standbys, so their files stay byte for byte the same as its own. Shares the buffer's
    /// storage (no copy) until the commit empties it.
    package var uncommittedBytes: [UInt8] { buffer }

    /// Buffers bytes already encoded as records (a standby appends what its leader wrote).
    package func appendEncoded(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
    }

    /// The committed file, whole: a leader's catch-up snapshot for a standby that (re)joins.
    package func committedFileBytes() throws(JournalError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw JournalError("cannot read \(path)") }
        return [UInt8](data.prefix(fileBytes))
    }

    /// Replaces the file with `bytes`, a leader's whole journal (its compaction, or the
    /// catch-up it sends a standby), by the same steps as a compaction: written beside, synced,
    /// renamed over the old file, the directory synced.
    package func replaceFile(with bytes: [UInt8]) throws(JournalError) {
        try commit()
        try rewrite(bytes)
        headerDeferred = false
    }

    /// Writes and syncs every buffered record.
    ///
    /// A failure is final: after a failed `fdatasync` Linux may have dropped the dirty pages
    /// and a retry can report success for data that is not on disk, so the journal refuses
    /// every later commit. The owner stops; a restart reads what the disk really holds (a
    /// partly written record at the end is cut off then).
    package func commit() throws(JournalError) {
        if let failure { throw failure }
        guard !buffer.isEmpty else { return }
        guard descriptor >= 0 else { throw JournalError("the journal in \(directory) is closed") }
        do throws(JournalError) {
            try Self.writeAll(descriptor, buffer, path: path)
            #if os(Linux)
            guard fdatasync(descriptor) == 0 else { throw JournalError.system("cannot sync", path: path, errno: errno) }
            #else
            guard fullSync(descriptor) == 0 else { throw JournalError.system("cannot sync", path: path, errno: errno) }
            #endif
        } catch {
            failure = error
            throw error
        }
        fileBytes += buffer.count
        buffer.removeAll(keepingCapacity: buffer.count <= 1 << 20)
        headerDeferred = false
        commits += 1
    }

    /// Replaces the file with `live`: the unfinished requests and the outcomes still worth
    /// keeping. The new file is written beside the old one, synced, then renamed over it, so a
    /// crash at any point leaves one whole journal.
    ///
    /// A failure leaves the old file in use and removes the new one; ``needsCompaction`` then
    /// stays false until the file has grown by another threshold, so a full or read-only disk
    /// costs one attempt per threshold, not one per batch.
    package func compact(_ live: [JournalRecord]) throws(JournalError) {
        var snapshot = JournalSnapshot()
        for record in live { snapshot.append(record) }
        try compact(snapshot)
    }

    /// Rewrites the journal as `snapshot`'s records, as ``compact(_:)-([JournalRecord])`` does.
    package func compact(_ snapshot: JournalSnapshot) throws(JournalError) {
        // A header waiting alone is no record: the snapshot brings its own, and a commit of it
        // on a disk still full would fail the journal for good.
        let headerAlone = headerDeferred && buffer.count == Self.header.count
        if !headerAlone { try commit() }
        try rewrite(snapshot.bytes)
        if headerAlone { buffer.removeAll() }
        headerDeferred = false
    }

    /// Writes `bytes` beside the file, syncs them, renames them over it and syncs the directory;
    /// appends go to the new file from then on.
    private func rewrite(_ bytes: [UInt8]) throws(JournalError) {
        let temporary = path + ".compacting"
        let reopened: Int32
        do throws(JournalError) {
            try Self.writeFile(temporary, bytes: bytes)
            // Opened before the rename, so appends never go to a file that is no longer the journal.
            reopened = open(temporary, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard reopened >= 0 else { throw JournalError.system("cannot open", path: temporary, errno: errno) }
            guard rename(temporary, path) == 0 else {
                let code = errno
                closeDescriptor(reopened)
                throw JournalError.system("cannot replace", path: path, errno: code)
            }
        } catch {
            unlink(temporary)
            nextCompaction = fileBytes + compactionBytes
            throw error
        }
        Self.syncDirectory(directory)
        closeDescriptor(descriptor)
        descriptor = reopened
        fileBytes = bytes.count
        nextCompaction = max(compactionBytes, 2 * fileBytes)
    }

    /// Commits nothing more and releases the directory.
    package func close() {
        if descriptor >= 0 { closeDescriptor(descriptor) }
        if lockDescriptor >= 0 { closeDescriptor(lockDescriptor) }
        descriptor = -1
        lockDescriptor = -1
    }

    // MARK: Files

    private static func lock(_ directory: String) throws(JournalError) -> Int32 {
        let lockPath = (directory as NSString).appendingPathComponent("LOCK")
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JournalError.system("cannot open", path: lockPath, errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: lockPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            closeDescriptor(descriptor)
            throw JournalError("the data directory \(directory) is in use by another coordinator\(holder.isEmpty ? "" : " (pid \(holder))"); give each coordinator its own --data-dir")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return descriptor
    }

    /// Reads every whole record; returns what they say and how many leading bytes are valid
    /// (0 for a missing or empty file).
    private static func read(_ path: String) throws(JournalError) -> (JournalRecovery, Int) {
        guard FileManager.default.fileExists(atPath: path) else { return (JournalRecovery(), 0) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JournalError("cannot read \(path)")
        }
        let bytes = [UInt8](data)
        // Empty, or a header cut short by a crash while the file was being created.
        guard bytes.count >= header.count || !header.starts(with: bytes) else { return (JournalRecovery(), 0) }
        guard bytes.count >= header.count, Array(bytes[0..<header.count]) == header else {
            throw JournalError("\(path) is not an ActionBus journal (it does not start with \"ABJOURN1\"); move it away or use another --data-dir")
        }
        return try recovery(of: bytes, path: path)
    }

    /// What a journal's bytes (its header, then records) hold, and how many of them are intact:
    /// a torn end is cut off, damage with more after it throws. A simulation's journal kept in
    /// memory is read by the same rules as a file.
    package static func recovery(of bytes: [UInt8], path: String = "the journal") throws(JournalError) -> (JournalRecovery, Int) {
        var recovery = JournalRecovery()
        var unfinished: [RecoveredRequest?] = []
        var unfinishedIndex: [String: Int] = [:]
        var offset = header.count
        reading: while true {
            switch JournalRecord.read(from: bytes, at: offset) {
            case .notIntact:
                break reading
            case .invalid(let next):
                recovery.skippedRecords += 1
                offset = next
            case .record(let record, let next):
                recovery.records += 1
                switch record {
                case .accepted, .acceptedPacked:
                    // Read records are `.accepted`; `acceptance` reads either form.
                    guard let (request, deadline) = record.acceptance else { break }
                    unfinishedIndex[request.requestID] = unfinished.count
                    unfinished.append(RecoveredRequest(request: request, deadline: deadline))
                case .finished(let outcome):
                    if let index = unfinishedIndex.removeValue(forKey: outcome.requestID) { unfinished[index] = nil }
                    recovery.finished.append(outcome)
                case .published(let outcome, let position, let publishedAt, let finishesRequest):
                    if finishesRequest {
                        if let index = unfinishedIndex.removeValue(forKey: outcome.requestID) { unfinished[index] = nil }
                        recovery.finished.append(outcome)
                    }
                    // A compaction's kept history and the records of batches it overtook may
                    // both hold a position: the first is the one.
                    if position > recovery.streamHead {
                        recovery.published.append(PublishedOutcome(position: position, publishedAt: publishedAt, outcome: outcome))
                        recovery.streamHead = position
                    }
                case .streamHead(let position):
                    recovery.streamHead = max(recovery.streamHead, position)
                case .workerDied(let requestID):
                    if let index = unfinishedIndex[requestID] { unfinished[index]?.workerDeaths += 1 }
                case .featureSwitches(let switches):
                    recovery.featureSwitches = switches
                case .knownActions(let actions):
                    recovery.knownActions = actions
                case .workers(let names):
                    recovery.workers = names
                }
                offset = next
            }
        }
        if offset < bytes.count, !JournalRecord.isTornEnd(bytes, at: offset) {
            throw JournalError("""
                \(path) is damaged at byte \(offset) of \(bytes.count): the record there is not intact and more \
                follows it, so it is not a write cut short by a crash. Nothing was changed. Keep the file for \
                inspection; to start anyway, move it aside (the coordinator then starts with an empty journal).
                """)
        }
        recovery.unfinished = unfinished.compactMap { $0 }
        recovery.discardedBytes = bytes.count - offset
        return (recovery, offset)
    }

    /// Replaces the file at `path` with `bytes` so that a crash leaves the old file or the new
    /// one, whole: written beside, synced, renamed over it, the directory synced. For small
    /// files kept next to the journal (a standby's epoch).
    package static func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(JournalError) {
        let temporary = path + ".new"
        do throws(JournalError) {
            try writeFile(temporary, bytes: bytes)
            guard rename(temporary, path) == 0 else { throw JournalError.system("cannot replace", path: path, errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        syncDirectory((path as NSString).deletingLastPathComponent)
    }

    private static func writeFile(_ path: String, bytes: [UInt8]) throws(JournalError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JournalError.system("cannot create", path: path, errno: errno) }
        defer { closeDescriptor(descriptor) }
        try writeAll(descriptor, bytes, path: path)
        #if os(Linux)
        guard fsync(descriptor) == 0 else { throw JournalError.system("cannot sync", path: path, errno: errno) }
        #else
        guard fullSync(descriptor) == 0 else { throw JournalError.system("cannot sync", path: path, errno: errno) }
        #endif
        syncDirectory((path as NSString).deletingLastPathComponent)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(JournalError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress! + written, raw.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw JournalError.system("cannot write", path: path, errno: errno)
            }
            written += result
        }
    }

    /// Makes a new or renamed file's directory entry durable.
    private static func syncDirectory(_ directory: String) {
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        #if os(Linux)
        _ = fsync(descriptor)
        #else
        _ = fullSync(descriptor)
        #endif
        closeDescriptor(descriptor)
    }
}

#if !os(Linux)
/// Flushes the file to stable storage. Darwin's `fsync` returns once the data reaches the drive,
/// which may hold it in its cache across a power loss; `F_FULLFSYNC` makes the drive write it
/// out, which is what `fdatasync` and `fsync` promise on Linux. Falls back to `fsync` where the
/// file system refuses `F_FULLFSYNC` (as SQLite does).
private func fullSync(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
    if fcntl(descriptor, F_FULLFSYNC) != -1 { return 0 }
    #endif
    return fsync(descriptor)
}
#endif

private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}
