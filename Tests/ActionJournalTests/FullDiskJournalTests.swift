import ActionBusTestSupport
import ActionJournal
import ActionWire
import Foundation
import Testing

/// A journal created on a file system with no byte free (a tmpfs mounted for the test): it
/// opens, its header waits for the first commit, and what it writes once space returns reads
/// back whole.
@Suite("Request journal on a full disk", .serialized)
struct FullDiskJournalTests {
    @Test(.enabled(if: SmallFileSystem.canMount || SmallFileSystem.isRequired,
                   "mounting a tmpfs needs root on Linux (ACTIONBUS_REQUIRE_TMPFS=1 makes it a failure)"))
    func aNewJournalOpensOnAFullDiskAndWritesItsHeaderWithItsFirstRecords() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("journal-full-\(UUID().uuidString)")
        let disk = try SmallFileSystem(at: root, bytes: 1 << 20)
        defer { disk.unmount() }
        try disk.fill(leaving: 0)
        let directory = disk.path + "/data"
        let request = WireRequest(requestID: "a", action: "Echo.say", input: Array(#"{"text":"hi"}"#.utf8))
        let deadline = Date(timeIntervalSince1970: 1_900_000_000)
        do {
            let journal = try RequestJournal(directory: directory)
            defer { journal.close() }
            #expect(journal.fileBytes == 0 && journal.hasUncommitted, "the header waits in the buffer")
            // A compaction with nothing but the header waiting fails for want of space, and
            // does not fail the journal: the header is not a record.
            #expect(throws: JournalError.self) { try journal.compact(JournalSnapshot()) }
            try disk.remove()
            journal.append(.accepted(request, deadline: deadline))
            try journal.commit()
        }
        let reopened = try RequestJournal(directory: directory)
        defer { reopened.close() }
        #expect(reopened.recovery.unfinished.map(\.request) == [request])
        #expect(reopened.recovery.discardedBytes == 0)
    }
}
