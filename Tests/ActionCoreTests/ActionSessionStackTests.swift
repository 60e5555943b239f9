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
