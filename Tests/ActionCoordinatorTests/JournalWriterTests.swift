@testable import ActionCoordinator
import ActionJournal
import ActionWire
import Dispatch
import Foundation
import Locking
import Testing

/// The journal's thread commits in groups: what the loop hands over while a commit is under way
/// goes out with the next one, in order, and a compaction stays where it was asked for.
@Suite("Coordinator journal writer")
struct JournalWriterTests {
    /// A journal in a new temporary directory, removed by `body`'s end.
    func withJournal(_ body: (String, RequestJournal) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-writer-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory, try RequestJournal(directory: directory))
    }

    /// An accepted request `id`, and an output that names it (its acceptance) to follow its commit.
    func batch(_ id: String) -> (records: [JournalRecord], output: HeldOutput) {
        let request = WireRequest(requestID: id, action: "Echo.say", input: Array(#"{"text":"hi"}"#.utf8))
        var output = HeldOutput()
        output.acceptances = [(ClientAddress(routingID: [0x01]), [id])]
        return ([.accepted(request, deadline: Date().addingTimeInterval(60))], output)
    }

    @Test func batchesHandedOverDuringACommitAreCommittedTogetherInOrder() throws {
        try withJournal { _, journal in
            let wakes = Locked(0)
            let writer = JournalWriter(journal: journal) { wakes.withLock { $0 += 1 } }
            let hold = DispatchSemaphore(value: 0)
            // The journal's thread is busy (as during a slow fdatasync) while five turns end.
            writer.onJournalThread { hold.wait() }
            for index in 1...5 {
                let (records, output) = batch("r\(index)")
                writer.commit(records, releasing: output)
            }
            #expect(writer.inFlight == 5)
            hold.signal()
            writer.waitForAll()

            let finished = writer.takeFinished()
            #expect(finished.map { $0.output.acceptances.first?.requestIDs } == (1...5).map { ["r\($0)"] })
            #expect(finished.allSatisfy { $0.failure == nil })
            #expect(writer.inFlight == 0)
            // One write and one fdatasync for the five, and one wake of the loop.
            #expect(journal.commits == 1)
            #expect(wakes.withLock { $0 } == 1)
            writer.close()
        }
    }

    @Test func aBatchAfterACommitGetsACommitOfItsOwn() throws {
        try withJournal { _, journal in
            let writer = JournalWriter(journal: journal) {}
            for index in 1...3 {
                let (records, output) = batch("r\(index)")
                writer.commit(records, releasing: output)
                writer.waitForAll()
            }
            #expect(writer.takeFinished().count == 3)
            #expect(journal.commits == 3)
            writer.close()
        }
    }

    @Test func aCompactionStaysBetweenTheBatchesItWasAskedForBetween() throws {
        try withJournal { directory, journal in
            let writer = JournalWriter(journal: journal) {}
            let hold = DispatchSemaphore(value: 0)
            writer.onJournalThread { hold.wait() }
            let (before, beforeOutput) = batch("before")
            writer.commit(before, releasing: beforeOutput)
            // The snapshot of what is live when it is asked for: nothing (as if "before" had
            // finished); "after" comes later, so the new file must hold it.
            let compacted = Locked<Result<(before: Int, after: Int), JournalError>?>(nil)
            writer.compact(JournalSnapshot()) { result in compacted.withLock { $0 = result } }
            let (after, afterOutput) = batch("after")
            writer.commit(after, releasing: afterOutput)
            hold.signal()
            writer.waitForAll()

            #expect(writer.takeFinished().map { $0.output.acceptances.first?.requestIDs } == [["before"], ["after"]])
            // "before" was synced before the compaction, "after" after it: two commits, not one.
            #expect(journal.commits == 2)
            #expect(try compacted.withLock { try #require($0).get() }.after < journal.fileBytes)
            writer.close()

            let reopened = try RequestJournal(directory: directory)
            defer { reopened.close() }
            #expect(reopened.recovery.unfinished.map(\.request.requestID) == ["after"])
        }
    }
}
