import ActionCore
import ExampleFeatures
import Foundation
import Testing

@Suite("ActionSession completion rules")
struct ActionSessionCompletionTests {
    let session = ActionSession(name: "completion")
    let observer = TestObserver()

    init() {
        session.addObserver(observer)
    }

    @Test("A second completion is reported to observers, not delivered, and does not crash")
    func doubleCompletionIsReported() async throws {
        let outcomes = Recorder<ActionOutcome<String>>()
        let id = session.perform(ProbeFeature.completesTwice) { outcomes.record($0) }
        let reported = await observer.events.waitForValues(count: 3)
        #expect(reported?.contains(.completedTwice(id, .secondCompletion)) == true)
        #expect(outcomes.values.map(\.output) == ["first"])
    }

    @Test("An action that never completes fails with timedOut at its deadline")
    func neverCompletingActionTimesOut() async {
        let outcomes = Recorder<ActionOutcome<NoOutput>>()
        let started = ContinuousClock.now
        let id = session.perform(FaultFeature.hang, deadline: .now + .milliseconds(100)) { outcomes.record($0) }
        let outcome = await outcomes.waitForValues()?.first
        #expect(outcome?.error?.code == .timedOut)
        #expect(ContinuousClock.now - started >= .milliseconds(100))
        // The message says how long it had, worked out when it timed out (from its dispatch,
        // a moment after the deadline was set): the 100 ms, to the millisecond.
        let stated = outcome?.error?.message.split(separator: "(").last?.split(separator: " ").first.flatMap { Int($0) }
        #expect((stated ?? 0) >= 99, "\(outcome?.error?.message ?? "")")
        let events = await observer.events.waitForValues(count: 3)
        #expect(events == [.willBegin(id, "Fault.hang"), .timedOut(id), .didComplete(id, .failure(.timedOut))])
    }

    @Test("A completion after the timeout is reported as late, not delivered")
    func lateCompletionIsReported() async {
        let outcomes = Recorder<ActionOutcome<String>>()
        let id = session.perform(ProbeFeature.completesLate, input: 150, deadline: .now + .milliseconds(20)) { outcomes.record($0) }
        let events = await observer.events.waitForValues(count: 4)
        #expect(events?.last == .completedTwice(id, .afterTimeout))
        #expect(outcomes.values.map(\.error?.code) == [.timedOut])
    }

    @Test("The session's default timeout applies when the caller gives no deadline")
    func defaultTimeout() async {
        var configuration = ActionSessionConfiguration()
        configuration.defaultTimeout = .milliseconds(50)
        let session = ActionSession(name: "short", configuration: configuration)
        let outcomes = Recorder<ActionOutcome<NoOutput>>()
        session.perform(FaultFeature.hang) { outcomes.record($0) }
        #expect(await outcomes.waitForValues()?.first?.error?.code == .timedOut)
    }

    @Test("Observers see willBegin before didComplete, in order, for every perform")
    func observerOrder() async {
        var ids: [ActionRequestID] = []
        for text in ["a", "b", "c"] {
            ids.append(session.perform(EchoFeature.say, input: .init(text: text)) { _ in })
        }
        let events = await observer.events.waitForValues(count: 6) ?? []
        for id in ids {
            let begin = events.firstIndex(of: .willBegin(id, "Echo.say"))
            let complete = events.firstIndex(of: .didComplete(id, .success()))
            #expect(begin != nil && complete != nil)
            if let begin, let complete { #expect(begin < complete) }
        }
    }

    @Test("The async API returns the output or throws the ActionError")
    func asyncAPI() async throws {
        let said = try await session.perform(EchoFeature.say, input: .init(text: "hi"))
        #expect(said.text == "hi")
        let error = await #expect(throws: ActionError.self) {
            try await session.perform(FaultFeature.fail, input: .init(message: "boom"))
        }
        #expect(error == ActionError(code: .actionFailed, message: "boom"))
    }

    @Test("Cancelling the awaiting task ends the perform with cancelled")
    func asyncCancellation() async {
        let task = Task { [session] in
            // The deadline only bounds the test: a loaded machine may run the cancel late.
            try await session.perform(FaultFeature.hang, deadline: .now + .seconds(120))
        }
        #expect(await observer.events.waitForValues(count: 1) != nil)
        task.cancel()
        let result = await task.result
        #expect((result.failure as? ActionError)?.code == .cancelled)
    }

    @Test("AsyncAction maps its result and thrown errors to outcomes")
    func asyncActionOutcomes() async {
        #expect(await session.outcome(of: ProbeFeature.asyncFunction, input: "ok").output == "done")
        #expect(await session.outcome(of: ProbeFeature.asyncFunction, input: "actionError").error?.code == .invalidInput)
        #expect(await session.outcome(of: ProbeFeature.asyncFunction, input: "other").error?.code == .actionFailed)
    }

    @Test("An AsyncAction's task is cancelled when the perform times out")
    func asyncActionTimesOut() async {
        let outcome = await session.outcome(of: ProbeFeature.asyncFunction, input: "wait", deadline: .now + .milliseconds(50))
        #expect(outcome.error?.code == .timedOut)
        // The cancelled task completes late; the session reports it instead of delivering it.
        let events = await observer.events.waitForValues(count: 4)
        #expect(events?.contains { if case .completedTwice(_, .afterTimeout) = $0 { true } else { false } } == true)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
