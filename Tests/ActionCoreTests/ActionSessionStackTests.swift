import ActionCore
import ExampleFeatures
import Testing

@Suite("ActionSession action stacks")
struct ActionSessionStackTests {
    @Test("A session records its performs in Flint's action stacks")
    func sessionTracksStacks() async throws {
        let session = ActionSession(name: "stacks", catalog: ExampleApp.catalog)
        _ = try await session.perform(DocumentsFeature.open, input: .init(name: "notes"))
        _ = try await session.perform(EchoFeature.say, input: .init(text: "hello"))
        _ = await session.outcome(of: DocumentsFeature.edit, input: .init(name: "other", text: "x"), deadline: nil)

        let roots = session.actionStackReport.stacks
        #expect(roots.count == 1)
        let documents = try #require(roots.first)
        #expect(documents.sessionName == "stacks")
        #expect(documents.actionNames == ["Documents.open", "Documents.edit"])
        #expect(documents.entries.last?.outcome == .failure(.documentNotOpen))
        #expect(documents.subStacks.first?.actionNames == ["Echo.say"])

        let closed = await session.outcome(of: DocumentsFeature.close, input: .init(name: "notes"))
        #expect(closed.closeActionStack)
        #expect(session.actionStacks.openStackCount == 0)
    }

    @Test("A TerminatingAction succeeds and closes its feature's stack")
    func terminatingAction() async throws {
        let session = ActionSession(name: "terminating")
        _ = try await session.perform(ProbeFeature.onSessionMain)
        #expect(session.actionStacks.openStack(sessionName: "terminating", featureName: "ProbeFeature") != nil)
        let outcome = await session.outcome(of: ProbeFeature.terminate, input: NoInput())
        #expect(outcome.closeActionStack)
        #expect(outcome.output == NoOutput())
        #expect(session.actionStacks.openStackCount == 0)
    }

    @Test("Timed out performs are recorded with their timedOut outcome")
    func timeoutsAreRecorded() async throws {
        let session = ActionSession(name: "timeouts")
        _ = await session.outcome(of: FaultFeature.hang, input: NoInput(), deadline: .now + .milliseconds(20))
        let stack = try #require(session.actionStacks.openStack(sessionName: "timeouts", featureName: "Fault"))
        #expect(stack.entries.map(\.outcome) == [.failure(.timedOut)])
    }

    @Test("Ending a session closes every open stack, sub-stacks with it, and returns them")
    func endClosesEveryOpenStack() async throws {
        let session = ActionSession(name: "ending", catalog: ExampleApp.catalog)
        _ = try await session.perform(DocumentsFeature.open, input: .init(name: "notes"))
        _ = try await session.perform(EchoFeature.say, input: .init(text: "inside"))
        #expect(session.actionStacks.openStackCount == 2)
        let closed = session.end()
        #expect(closed.map(\.featureName) == ["Documents"])
        #expect(closed.first?.subStacks.map(\.featureName) == ["Echo"])
        #expect(session.actionStacks.openStackCount == 0)
        #expect(session.end().isEmpty, "nothing is left to close")
        // The session stays usable: the next perform opens a new stack.
        _ = try await session.perform(EchoFeature.say, input: .init(text: "after"))
        #expect(session.actionStackReport.stacks.map(\.actionNames) == [["Echo.say"]])
    }

    @Test("A hosted session reports the performs its host did not request (the nested ones) and keeps no stacks of its own")
    func hostedSessionReportsNestedPerforms() async throws {
        let reported = Recorder<UnrequestedPerform>()
        let session = ActionSession(
            name: "hosted", catalog: ActionCatalog(features: [ProbeFeature.self]), userInitiated: false,
            configuration: ActionSessionConfiguration(), mainQueue: nil,
            unrequestedPerformReporter: { reported.record($0) }
        )
        // The host's own perform (a worker's path) is not reported; the action it performs is.
        let forwarded = Recorder<JSONBytesOutcome>()
        session.performForwarding(named: ProbeFeature.nested.fullName, jsonInput: Array("{}".utf8)) { forwarded.record($0) }
        let outcome = try #require(await forwarded.waitForValues(count: 1)?.first)
        guard case .success = outcome else { Issue.record("the forwarded perform failed: \(outcome)"); return }
        let nested = try #require(await reported.waitForValues(count: 1, timeout: .seconds(10)))
        #expect(nested.map(\.record.actionName) == [ProbeFeature.onSerialQueue.fullName])
        #expect(nested.first?.record.userInitiated == false)
        #expect(nested.first?.record.sessionName == "hosted")
        #expect(nested.first?.errorMessage == nil)
        // Performs anyone else starts in it are reported too: they were not the host's.
        _ = await session.outcome(of: FaultFeature.fail, input: .init(message: "boom"))
        let all = try #require(await reported.waitForValues(count: 2))
        #expect(all.last?.record.outcome.errorCode == .actionFailed)
        #expect(all.last?.errorMessage == "boom")
        #expect(reported.count == 2)
        // Its stacks are its host's to keep (a worker's coordinator): none here.
        #expect(session.actionStackReport.stacks.isEmpty)
    }

    @Test("Each session has its own stacks")
    func separateSessions() async throws {
        let alice = ActionSession(name: "alice")
        let bob = ActionSession(name: "bob")
        _ = try await alice.perform(DocumentsFeature.open, input: .init(name: "a"))
        _ = try await bob.perform(EchoFeature.say, input: .init(text: "b"))
        #expect(alice.actionStackReport.stacks.map(\.featureName) == ["Documents"])
        #expect(bob.actionStackReport.stacks.map(\.featureName) == ["Echo"])
        #expect(bob.actionStackReport.stacks.first?.parentID == nil)
    }
}
