import ActionCore
import Foundation
import Testing

@Suite("ActionStackTracker")
struct ActionStackTrackerTests {
    private func record(
        _ action: String,
        in session: String = "s1",
        outcome: ActionOutcomeSummary = .success()
    ) -> ActionStackRecord {
        let feature = String(action.prefix { $0 != "." })
        // Whole seconds, so the ISO 8601 report round-trips exactly.
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        return ActionStackRecord(sessionName: session, featureName: feature, actionName: action, outcome: outcome, date: date)
    }

    @Test("Actions of one feature in one session share a stack")
    func sameFeatureSharesStack() throws {
        var tracker = ActionStackTracker()
        let first = tracker.record(record("Documents.open"))
        let second = tracker.record(record("Documents.edit", outcome: .failure(.actionFailed)))
        #expect(first.openedStack)
        #expect(!second.openedStack)
        #expect(first.stackID == second.stackID)
        let stack = try #require(tracker.openStack(sessionName: "s1", featureName: "Documents"))
        #expect(stack.actionNames == ["Documents.open", "Documents.edit"])
        #expect(stack.entries.map(\.outcome) == [.success(), .failure(.actionFailed)])
        #expect(stack.parentID == nil)
    }

    @Test("A stack keeps the most recent entries up to its cap, dropping the oldest")
    func entryCap() throws {
        var tracker = ActionStackTracker()
        for index in 1...105 {
            tracker.record(record("Documents.edit\(index)"))
        }
        let stack = try #require(tracker.openStack(sessionName: "s1", featureName: "Documents"))
        #expect(stack.entries.count == 100)
        #expect(stack.droppedEntryCount == 5)
        #expect(stack.actionNames.first == "Documents.edit6")
        #expect(stack.actionNames.last == "Documents.edit105")
        #expect(ActionStackTracker.defaultMaximumEntries == 100)
    }

    @Test("A stack opened while another is open in the session becomes its sub-stack")
    func subStack() throws {
        var tracker = ActionStackTracker()
        let documents = tracker.record(record("Documents.open"))
        let echo = tracker.record(record("Echo.say"))
        #expect(echo.openedStack)
        #expect(echo.parentStackID == documents.stackID)

        let roots = tracker.openStacks(sessionName: "s1")
        #expect(roots.count == 1)
        let root = try #require(roots.first)
        #expect(root.featureName == "Documents")
        #expect(root.entries.map(\.kind) == [.action, .subStack])
        #expect(root.entries.last?.subStackID == echo.stackID)
        #expect(root.subStacks.map(\.featureName) == ["Echo"])
        #expect(root.subStacks.first?.actionNames == ["Echo.say"])
        #expect(tracker.openStackCount == 2)
    }

    @Test("A new stack nests under the most recently opened stack of the session")
    func nestsUnderMostRecentStack() {
        var tracker = ActionStackTracker()
        let documents = tracker.record(record("Documents.open"))
        let echo = tracker.record(record("Echo.say"))
        let math = tracker.record(record("Math.fibonacci"))
        #expect(echo.parentStackID == documents.stackID)
        #expect(math.parentStackID == echo.stackID)
        // Using an existing stack's feature again does not reopen or re-parent it.
        let again = tracker.record(record("Documents.edit"))
        #expect(again.stackID == documents.stackID && !again.openedStack)
    }

    @Test("closeActionStack closes the feature's stack")
    func closeStack() throws {
        var tracker = ActionStackTracker()
        tracker.record(record("Documents.open"))
        let close = tracker.record(record("Documents.close", outcome: .success(closeActionStack: true)))
        let closed = try #require(close.closedStack)
        #expect(closed.actionNames == ["Documents.open", "Documents.close"])
        #expect(tracker.openStackCount == 0)
        let reopened = tracker.record(record("Documents.open"))
        #expect(reopened.openedStack)
        #expect(reopened.stackID != close.stackID)
    }

    @Test("Closing a stack closes its sub-stacks too")
    func closeClosesSubStacks() throws {
        var tracker = ActionStackTracker()
        tracker.record(record("Documents.open"))
        tracker.record(record("Echo.say"))
        tracker.record(record("Math.fibonacci"))
        let close = tracker.record(record("Documents.close", outcome: .success(closeActionStack: true)))
        let closed = try #require(close.closedStack)
        #expect(closed.subStacks.map(\.featureName) == ["Echo"])
        #expect(closed.subStacks.first?.subStacks.map(\.featureName) == ["Math"])
        #expect(tracker.openStackCount == 0)
        #expect(tracker.openStack(sessionName: "s1", featureName: "Echo") == nil)
    }

    @Test("Closing a sub-stack leaves its parent open")
    func closeSubStackKeepsParent() throws {
        var tracker = ActionStackTracker()
        let documents = tracker.record(record("Documents.open"))
        tracker.record(record("Echo.say"))
        tracker.record(record("Echo.done", outcome: .success(closeActionStack: true)))
        let parent = try #require(tracker.openStack(id: documents.stackID))
        #expect(parent.subStacks.isEmpty)
        #expect(parent.entries.map(\.kind) == [.action, .subStack])
        // The next new feature nests under the parent again.
        let math = tracker.record(record("Math.fibonacci"))
        #expect(math.parentStackID == documents.stackID)
    }

    @Test("Sessions keep separate stacks, and never nest into each other")
    func separateSessions() {
        var tracker = ActionStackTracker()
        let alice = tracker.record(record("Documents.open", in: "alice"))
        let bob = tracker.record(record("Echo.say", in: "bob"))
        let bobDocuments = tracker.record(record("Documents.open", in: "bob"))
        #expect(bob.parentStackID == nil)
        #expect(bobDocuments.stackID != alice.stackID)
        #expect(bobDocuments.parentStackID == bob.stackID)
        tracker.record(record("Documents.close", in: "alice", outcome: .success(closeActionStack: true)))
        #expect(tracker.openStack(sessionName: "alice", featureName: "Documents") == nil)
        #expect(tracker.openStack(sessionName: "bob", featureName: "Documents") != nil)
        #expect(tracker.openStacks(sessionName: "bob").count == 1)
        #expect(tracker.openStacks().count == 1)
    }

    @Test("Different features close independently")
    func separateFeatures() {
        var tracker = ActionStackTracker()
        tracker.record(record("Documents.open", in: "alice"))
        tracker.record(record("Echo.say", in: "carol"))
        tracker.record(record("Echo.done", in: "carol", outcome: .success(closeActionStack: true)))
        #expect(tracker.openStack(sessionName: "alice", featureName: "Documents") != nil)
        #expect(tracker.openStack(sessionName: "carol", featureName: "Echo") == nil)
    }

    @Test("Ending a session closes all its stacks")
    func closeSessionStacks() {
        var tracker = ActionStackTracker()
        tracker.record(record("Documents.open", in: "alice"))
        tracker.record(record("Echo.say", in: "alice"))
        tracker.record(record("Echo.say", in: "bob"))
        let closed = tracker.closeStacks(sessionName: "alice")
        #expect(closed.map(\.featureName) == ["Documents"])
        #expect(tracker.openStackCount == 1)
    }

    @Test("The JSON report names the session, feature, actions, outcomes and sub-stacks")
    func jsonReport() throws {
        var tracker = ActionStackTracker()
        tracker.record(record("Documents.open"))
        tracker.record(record("Echo.say", outcome: .failure(.invalidInput)))
        let report = tracker.report()
        let json = try report.jsonData()
        #expect(try ActionStacksReport(jsonData: json) == report)

        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let stacks = try #require(object["stacks"] as? [[String: Any]])
        let stack = try #require(stacks.first)
        #expect(stack["sessionName"] as? String == "s1")
        #expect(stack["featureName"] as? String == "Documents")
        let entries = try #require(stack["entries"] as? [[String: Any]])
        #expect(entries.first?["actionName"] as? String == "Documents.open")
        #expect((entries.first?["outcome"] as? [String: Any])?["status"] as? String == "success")
        let subStack = try #require((stack["subStacks"] as? [[String: Any]])?.first)
        let subEntry = try #require((subStack["entries"] as? [[String: Any]])?.first)
        #expect((subEntry["outcome"] as? [String: Any])?["errorCode"] as? String == "invalidInput")
    }

    @Test("The text report is readable")
    func textReport() {
        var tracker = ActionStackTracker()
        tracker.record(record("Documents.open"))
        tracker.record(record("Echo.say"))
        let text = tracker.report().text
        #expect(text.contains("Stack 1 for feature Documents in session 's1'"))
        #expect(text.contains("Documents.open → success"))
        #expect(text.contains("↪ sub-stack 2 (Echo)"))
        #expect(text.contains("    Stack 2 for feature Echo in session 's1'"))
        #expect(ActionStackTracker().report().text.contains("(none)"))
    }
}
