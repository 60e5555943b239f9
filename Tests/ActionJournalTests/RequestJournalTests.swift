import ActionJournal
import ActionWire
import Foundation
import Testing

/// The journal file: durability of commits, recovery, torn ends, locking and compaction.
@Suite("Request journal")
struct RequestJournalTests {
    let directory: String

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-test-\(UUID().uuidString)").path
    }

    var journalPath: String { (directory as NSString).appendingPathComponent("journal.log") }

    func request(_ id: String, input: String = #"{"text":"hi"}"#) -> WireRequest {
        WireRequest(requestID: id, action: "Echo.say", session: "s", timeoutMilliseconds: 1000, input: Array(input.utf8))
    }

    func outcome(_ id: String) -> WireOutcome {
        WireOutcome(requestID: id, action: "Echo.say", session: "s", worker: "w1", closeActionStack: true,
                    result: .success(contentType: WireRequest.json, output: Array(#"{"text":"hi"}"#.utf8)))
    }

    func withJournal<T>(compactionBytes: Int = 64 << 20, _ body: (RequestJournal) throws -> T) throws -> T {
        let journal = try RequestJournal(directory: directory, compactionBytes: compactionBytes)
        defer { journal.close() }
        return try body(journal)
    }

    @Test func committedRecordsComeBackUnfinishedOrFinished() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let deadline = Date(timeIntervalSince1970: 1_900_000_000.123)
        try withJournal { journal in
            #expect(journal.recovery.records == 0)
            journal.append(.accepted(request("a"), deadline: deadline))
            journal.append(.accepted(request("b"), deadline: deadline))
            journal.append(.finished(outcome("a")))
            #expect(journal.hasUncommitted)
            try journal.commit()
            #expect(!journal.hasUncommitted)
            #expect(journal.commits == 1)
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.records == 3)
        #expect(recovery.unfinished.map(\.request) == [request("b")])
        #expect(abs(recovery.unfinished[0].deadline.timeIntervalSince(deadline)) < 0.002)
        #expect(recovery.finished == [outcome("a")])
        #expect(recovery.discardedBytes == 0)
    }

    @Test func publishedOutcomesComeBackInPositionOrderOnceAndTheStreamGoesOnFromItsHead() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withJournal { journal in
            journal.append(.accepted(request("a"), deadline: Date(timeIntervalSince1970: 1_900_000_000)))
            journal.append(.published(outcome("a"), position: 1, publishedAt: 1_000, finishesRequest: true))
            journal.append(.published(outcome("nested"), position: 2, publishedAt: 2_000, finishesRequest: false))
            // A compaction's history overtaken by a batch's own record: read once.
            journal.append(.published(outcome("nested"), position: 2, publishedAt: 2_000, finishesRequest: false))
            journal.append(.streamHead(5))
            journal.append(.workers(["w1", "w2"]))
            try journal.commit()
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.unfinished.isEmpty, "a published outcome that finishes its request finishes it")
        #expect(recovery.finished == [outcome("a")])
        #expect(recovery.published.map(\.position) == [1, 2])
        #expect(recovery.published.map(\.publishedAt) == [1_000, 2_000])
        #expect(recovery.published.map(\.outcome.requestID) == ["a", "nested"])
        #expect(recovery.streamHead == 5)
        #expect(recovery.workers == ["w1", "w2"], "the workers named last")
    }

    @Test func aRequestThatIsNotUserInitiatedComesBackSo() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var background = request("bg")
        background.userInitiated = false
        try withJournal { journal in
            journal.append(.accepted(background, deadline: Date(timeIntervalSince1970: 1_900_000_000)))
            journal.append(.accepted(request("fg"), deadline: Date(timeIntervalSince1970: 1_900_000_000)))
            try journal.commit()
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.unfinished.map(\.request) == [background, request("fg")])
        #expect(recovery.unfinished.map(\.request.userInitiated) == [false, true])
    }

    @Test func theLastFeatureSwitchesHold() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withJournal { journal in
            journal.append(.featureSwitches(["Echo": .off, "Labs": .on]))
            journal.append(.accepted(request("a"), deadline: Date(timeIntervalSince1970: 1_900_000_000)))
            journal.append(.featureSwitches(["Labs": .on]))
            try journal.commit()
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.featureSwitches == ["Labs": .on])
        #expect(recovery.records == 3)
        #expect(recovery.unfinished.map(\.request.requestID) == ["a"])
    }

    @Test func theLastKnownActionsHoldWithSinceWhenEachIsUnserved() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let served: Date? = nil
        let left = Date(timeIntervalSince1970: 1_900_000_000.5)
        try withJournal { journal in
            journal.append(.knownActions(["Echo.say": served]))
            journal.append(.knownActions(["Echo.say": left, "Math.fibonacci": served]))
            try journal.commit()
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.knownActions == ["Echo.say": left, "Math.fibonacci": served])
        #expect(recovery.records == 2 && recovery.skippedRecords == 0)
    }

    @Test func theRecordLayoutOnDiskIsStable() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withJournal { journal in
            journal.append(.workerDied(requestID: "r"))
            try journal.commit()
        }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journalPath)))
        // "ABJOURN1", then length 8, CRC-32 (zlib's) of the body, body: "D", 1 frame, "r".
        #expect(bytes == Array("ABJOURN1".utf8) + [0, 0, 0, 8, 0xA4, 0xB9, 0xE1, 0x8A, 0x44, 0, 1, 0, 0, 0, 1, 0x72])
    }

    @Test func workerDeathsAreCountedPerUnfinishedRequest() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withJournal { journal in
            journal.append(.accepted(request("a"), deadline: Date()))
            journal.append(.accepted(request("b"), deadline: Date()))
            journal.append(.workerDied(requestID: "a"))
            journal.append(.workerDied(requestID: "a"))
            journal.append(.workerDied(requestID: "b"))
            journal.append(.finished(outcome("b")))
            journal.append(.workerDied(requestID: "unknown"))
            try journal.commit()
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.unfinished.map(\.request.requestID) == ["a"])
        #expect(recovery.unfinished.first?.workerDeaths == 2)
        #expect(recovery.records == 7)
    }

    @Test func recordsNotCommittedAreNotThereAfterARestart() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withJournal { journal in
            journal.append(.accepted(request("a"), deadline: Date()))
            try journal.commit()
            journal.append(.accepted(request("never-committed"), deadline: Date()))
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.unfinished.map(\.request.requestID) == ["a"])
    }

    /// Writes request "a", appends `tail` to the file as a crash would leave it, then checks
    /// that reopening cuts the tail off and that later records still read.
    private func expectCutOff(tail: Data) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withJournal { journal in
            journal.append(.accepted(request("a"), deadline: Date()))
            try journal.commit()
        }
        let handle = try #require(FileHandle(forWritingAtPath: journalPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: tail)
        try handle.close()

        try withJournal { journal in
            #expect(journal.recovery.discardedBytes == tail.count)
            #expect(journal.recovery.unfinished.map(\.request.requestID) == ["a"])
            journal.append(.accepted(request("b"), deadline: Date()))
            try journal.commit()
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.discardedBytes == 0)
        #expect(recovery.unfinished.map(\.request.requestID) == ["a", "b"])
    }

    @Test func aTornEndIsCutOffAndLaterRecordsStillRead() throws {
        // Half a record, as a crash in the middle of a write leaves it.
        try expectCutOff(tail: Data([0, 0, 0, 40, 1, 2, 3, 4, UInt8(ascii: "A"), 0]))
    }

    @Test func aRecordWithABadChecksumEndsTheReadableJournal() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withJournal { journal in
            journal.append(.accepted(request("a"), deadline: Date()))
            journal.append(.accepted(request("b", input: #"{"text":"zzzz"}"#), deadline: Date()))
            try journal.commit()
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journalPath)))
        let z = try #require(bytes.lastIndex(of: UInt8(ascii: "z")))
        bytes[z] = UInt8(ascii: "y")
        try Data(bytes).write(to: URL(fileURLWithPath: journalPath))

        let recovery = try withJournal { $0.recovery }
        #expect(recovery.unfinished.map(\.request.requestID) == ["a"])
        #expect(recovery.discardedBytes > 0)
    }

    @Test func damageBeforeTheEndIsRefusedAndLeftForInspection() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withJournal { journal in
            journal.append(.accepted(request("a", input: #"{"text":"zzzz"}"#), deadline: Date()))
            journal.append(.accepted(request("b"), deadline: Date()))
            try journal.commit()
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journalPath)))
        let z = try #require(bytes.firstIndex(of: UInt8(ascii: "z")))
        bytes[z] = UInt8(ascii: "y")
        try Data(bytes).write(to: URL(fileURLWithPath: journalPath))

        let error = #expect(throws: JournalError.self) { try RequestJournal(directory: directory) }
        #expect(error?.description.contains("is damaged at byte 8 of \(bytes.count)") == true)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: journalPath))) == bytes)
    }

    @Test func aWholeRecordWithAnInvalidNameIsSkippedCountedAndReadPast() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // What a coordinator that let a control character through wrote: intact records
        // (their checksums hold) whose names the wire rules reject.
        var badAction = request("bad-action")
        badAction.action = "Echo.say\u{01}"
        var badOutcome = outcome("a")
        badOutcome.session = "s\u{1F}forged"
        try withJournal { journal in
            journal.append(.accepted(request("a"), deadline: Date()))
            journal.append(.accepted(badAction, deadline: Date()))
            journal.append(.finished(badOutcome))
            journal.append(.workerDied(requestID: "a\u{7F}"))
            journal.append(.accepted(request("b"), deadline: Date()))
            journal.append(.finished(outcome("b")))
            try journal.commit()
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: journalPath))
        try withJournal { journal in
            #expect(journal.recovery.skippedRecords == 3)
            #expect(journal.recovery.records == 3)
            #expect(journal.recovery.discardedBytes == 0)
            #expect(journal.recovery.unfinished.map(\.request.requestID) == ["a"])
            #expect(journal.recovery.finished == [outcome("b")])
            #expect(journal.fileBytes == bytes.count, "nothing cut off")
            journal.append(.accepted(request("c"), deadline: Date()))
            try journal.commit()
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.skippedRecords == 3)
        #expect(recovery.unfinished.map(\.request.requestID) == ["a", "c"])
    }

    @Test func aZeroFilledTailIsCutOffLikeATornEnd() throws {
        // A power loss can leave the file extended over blocks whose data never reached the disk.
        try expectCutOff(tail: Data(count: 4096))
    }

    @Test func oneCoordinatorPerDirectory() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withJournal { _ in
            let error = #expect(throws: JournalError.self) { try RequestJournal(directory: directory) }
            #expect(error?.description.contains("in use by another coordinator (pid \(getpid()))") == true)
        }
        // Released on close.
        _ = try withJournal { $0.recovery }
    }

    @Test func aHeaderCutShortByACrashStartsAFreshJournal() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("ABJ".utf8).write(to: URL(fileURLWithPath: journalPath))
        try withJournal { journal in
            #expect(journal.recovery.records == 0)
            journal.append(.accepted(request("a"), deadline: Date()))
            try journal.commit()
        }
        #expect(try withJournal { $0.recovery.unfinished.map(\.request.requestID) } == ["a"])
    }

    @Test func aFileThatIsNotAJournalIsLeftAlone() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: journalPath))
        let error = #expect(throws: JournalError.self) { try RequestJournal(directory: directory) }
        #expect(error?.description.contains("not an ActionBus journal") == true)
        #expect(try String(contentsOfFile: journalPath, encoding: .utf8) == "hello")
    }

    @Test func compactionKeepsOnlyWhatIsLive() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let deadline = Date(timeIntervalSince1970: 1_900_000_000)
        try withJournal(compactionBytes: 64 << 10) { journal in
            let padding = String(repeating: "p", count: 1000)
            for index in 0..<100 {
                journal.append(.accepted(request("r\(index)", input: #"{"text":"\#(padding)"}"#), deadline: deadline))
                journal.append(.finished(outcome("r\(index)")))
            }
            journal.append(.accepted(request("live"), deadline: deadline))
            try journal.commit()
            #expect(journal.needsCompaction)
            let before = journal.fileBytes
            try journal.compact([.finished(outcome("r99")), .accepted(request("live"), deadline: deadline)])
            #expect(journal.fileBytes < before / 10)
            #expect(!journal.needsCompaction)
            journal.append(.accepted(request("after"), deadline: deadline))
            try journal.commit()
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.finished == [outcome("r99")])
        #expect(recovery.unfinished.map(\.request.requestID) == ["live", "after"])
        #expect(!FileManager.default.fileExists(atPath: journalPath + ".compacting"))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full to make a write fail"))
    func aFailedCompactionRemovesItsTemporaryFileAndWaitsForAnotherThreshold() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let deadline = Date(timeIntervalSince1970: 1_900_000_000)
        let temporary = journalPath + ".compacting"
        let padding = String(repeating: "p", count: 1000)
        func fill(_ journal: RequestJournal, from first: Int) throws {
            for index in first..<first + 100 {
                journal.append(.accepted(request("r\(index)", input: #"{"text":"\#(padding)"}"#), deadline: deadline))
                journal.append(.finished(outcome("r\(index)")))
            }
            try journal.commit()
        }
        try withJournal(compactionBytes: 64 << 10) { journal in
            try fill(journal, from: 0)
            #expect(journal.needsCompaction)
            // The temporary file's path leads to a device that is always full (a symbolic link
            // survives the O_CREAT | O_TRUNC), so writing the compacted journal fails, as root too.
            try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: "/dev/full")
            #expect(throws: JournalError.self) { try journal.compact([.finished(outcome("r99"))]) }
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: temporary)) == nil, "removed on failure")
            // Not tried again at every batch; appending goes on in the old file.
            #expect(!journal.needsCompaction)
            journal.append(.accepted(request("live"), deadline: deadline))
            try journal.commit()
            #expect(!journal.needsCompaction)
            // Tried again once the journal has grown by another threshold.
            try fill(journal, from: 100)
            #expect(journal.needsCompaction)
            try journal.compact([.finished(outcome("r199")), .accepted(request("live"), deadline: deadline)])
            #expect(!journal.needsCompaction)
        }
        let recovery = try withJournal { $0.recovery }
        #expect(recovery.finished == [outcome("r199")])
        #expect(recovery.unfinished.map(\.request.requestID) == ["live"])
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }
}
