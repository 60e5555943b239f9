import ActionJournal
import ActionWire
import Foundation
import Testing

/// A standby's copy of a journal, made from what the leader's journal hands over: its commits'
/// bytes, its committed file, its compactions. The copy must be the same file, byte for byte.
@Suite("Journal copy")
struct JournalCopyTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("journal-copy-\(UUID().uuidString)").path

    func request(_ id: String) -> WireRequest {
        WireRequest(requestID: id, action: "Echo.say", session: "s", timeoutMilliseconds: 1000, input: Array(#"{"text":"hi"}"#.utf8))
    }

    func file(_ directory: String) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent("journal.log")) ?? Data())
    }

    @Test func theCopyMadeFromCommitsCatchUpAndCompactionIsTheSameFile() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let leaderDirectory = root + "/leader", standbyDirectory = root + "/standby"
        let leader = try RequestJournal(directory: leaderDirectory)
        defer { leader.close() }
        let deadline = Date(timeIntervalSince1970: 1_900_000_000)
        leader.append(.accepted(request("a"), deadline: deadline))
        try leader.commit()

        let standby = try RequestJournal(directory: standbyDirectory)
        defer { standby.close() }
        // It joins late: the whole file, then the commits after it.
        try standby.replaceFile(with: try leader.committedFileBytes())
        for id in ["b", "c"] {
            leader.append(.accepted(request(id), deadline: deadline))
            standby.appendEncoded(leader.uncommittedBytes)
            try leader.commit()
            try standby.commit()
        }
        #expect(file(standbyDirectory) == file(leaderDirectory))

        var live = JournalSnapshot()
        live.append(.accepted(request("c"), deadline: deadline))
        try leader.compact(live)
        try standby.replaceFile(with: live.bytes)
        #expect(file(standbyDirectory) == file(leaderDirectory))
        #expect(!FileManager.default.fileExists(atPath: standbyDirectory + "/journal.log.compacting"))
        standby.close()

        // What a coordinator started on the copy resumes.
        let reopened = try RequestJournal(directory: standbyDirectory)
        defer { reopened.close() }
        #expect(reopened.recovery.unfinished.map(\.request.requestID) == ["c"])
    }
}
