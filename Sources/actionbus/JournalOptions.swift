import ActionCoordinator
import ArgumentParser

/// Where the coordinator keeps its journal, shared by `coordinator` and `dev`.
struct JournalOptions: ParsableArguments {
    @Option(help: "Directory of the journal of accepted requests (created if missing; one coordinator per directory).")
    var dataDir = "./actionbus-data"
    @Flag(help: "Run without a journal: requests accepted but unfinished are lost if the coordinator dies.")
    var noJournal = false
    @Option(help: "Journal size in bytes past which it is rewritten with only what is live (at least 65536).")
    var journalCompactBytes = 64 << 20
    @Option(help: ArgumentHelp(
        "Free space the journal's file system must keep (50MB, 128MiB; 0 turns the check off).",
        discussion: "Below it new requests are refused 'storageFull' while accepted ones still run, until space is back above it by an eighth."
    ))
    var minFreeDisk = ByteSize(bytes: CoordinatorConfiguration().minFreeDiskBytes)

    /// The directory to journal in, or `nil` for none.
    var directory: String? { noJournal ? nil : dataDir }

    /// Sets the configuration's journal: its directory, compaction threshold and disk watermark.
    func apply(to configuration: inout CoordinatorConfiguration) {
        configuration.dataDirectory = directory
        configuration.journalCompactionBytes = journalCompactBytes
        configuration.minFreeDiskBytes = minFreeDisk.bytes
    }

    func validate() throws {
        guard !dataDir.isEmpty else { throw ValidationError("--data-dir must not be empty") }
        guard journalCompactBytes >= 1 << 16 else { throw ValidationError("--journal-compact-bytes must be at least 65536") }
    }
}
