import ArgumentParser

/// Where the coordinator keeps its journal, shared by `coordinator` and `dev`.
struct JournalOptions: ParsableArguments {
    @Option(help: "Directory of the journal of accepted requests (created if missing; one coordinator per directory).")
    var dataDir = "./actionbus-data"
    @Flag(help: "Run without a journal: requests accepted but unfinished are lost if the coordinator dies.")
    var noJournal = false

    /// The directory to journal in, or `nil` for none.
    var directory: String? { noJournal ? nil : dataDir }

    func validate() throws {
        guard !dataDir.isEmpty else { throw ValidationError("--data-dir must not be empty") }
    }
}
