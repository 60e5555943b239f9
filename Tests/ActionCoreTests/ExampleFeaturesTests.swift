import ActionCore
import ExampleFeatures
import Foundation
import Testing

@Suite("Example features")
struct ExampleFeaturesTests {
    let session = ActionSession(name: "examples-\(UUID().uuidString)", catalog: ExampleApp.catalog)

    @Test("The catalog lists every example action under its full name")
    func catalog() {
        #expect(ExampleApp.catalog.actionNames == [
            "Echo.say", "Echo.sayDirect", "Echo.sayTwice", "Clock.sleep", "Math.fibonacci", "Sequence.next", "Sequence.step",
            "Documents.open", "Documents.edit", "Documents.close", "Fault.fail", "Fault.hang", "Fault.crash",
            "Fault.flaky", "Fault.oversize", "Fault.block", "Labs.preview",
        ])
        #expect(ExampleApp.catalog.action(named: "Clock.sleep")?.actionDescription == SleepAction.description)
        #expect(ExampleApp.catalog.action(named: "Clock") == nil)
        #expect(ExampleApp.catalog.featureNames == ["ExampleApp", "Echo", "Clock", "Math", "Sequence", "Documents", "Fault", "Labs"])
        #expect(EchoFeature.say.fullName == "Echo.say")
        #expect(DocumentsFeature.open.fullName == "Documents.open")
    }

    @Test("Sequence.step counts a session's steps and says when each ran")
    func step() async throws {
        let first = try await session.perform(SequenceFeature.step, input: .init(ms: 5))
        let second = try await session.perform(SequenceFeature.step, input: .init())
        #expect(first.n == 1 && second.n == 2)
        #expect(first.endedUs - first.startedUs >= 5_000 && second.startedUs >= first.endedUs)
        await #expect(throws: ActionError.self) { try await session.perform(SequenceFeature.step, input: .init(ms: -1)) }
    }

    @Test("Echo.say returns its text, completing synchronously")
    func echo() async throws {
        let output = try await session.perform(EchoFeature.say, input: .init(text: "hello"))
        #expect(output.text == "hello")
        // Synchronous: on the session's main queue the completion arrives before perform returns.
        let order = Recorder<String>()
        session.mainExecutor.queue.sync {
            session.perform(EchoFeature.say, input: .init(text: "x")) { _ in order.record("completed") }
            order.record("returned")
        }
        #expect(order.values == ["completed", "returned"])
    }

    @Test("Echo.sayDirect runs on the caller's thread: its completion arrives before perform returns, from any thread")
    func echoDirect() {
        let order = Recorder<String>()
        let caller = pthread_self()
        session.perform(EchoFeature.sayDirect, input: .init(text: "x")) { outcome in
            order.record(pthread_equal(pthread_self(), caller) != 0 && outcome.output?.text == "x" ? "completed here" : "completed elsewhere")
        }
        order.record("returned")
        #expect(order.values == ["completed here", "returned"])
    }

    @Test("Clock.sleep completes after ms, asynchronously")
    func clock() async throws {
        let started = ContinuousClock.now
        let output = try await session.perform(ClockFeature.sleep, input: .init(ms: 60))
        #expect(output.sleptMs == 60)
        // (Dispatch's clock and ContinuousClock may differ by a tick: a little slack, not a bound.)
        #expect(ContinuousClock.now - started >= .milliseconds(55))
        let negative = await session.outcome(of: ClockFeature.sleep, input: .init(ms: -1))
        #expect(negative.error?.code == .invalidInput)
    }

    @Test("Clock.sleep does not block its queue: later actions finish while it sleeps")
    func clockSleepDoesNotBlockItsQueue() async {
        let order = Recorder<String>()
        // Both run on the session's serial queue; a blocking sleep would hold Echo.say back.
        session.perform(ClockFeature.sleep, input: .init(ms: 20_000)) { order.record("slept \($0.output?.sleptMs ?? -1)") }
        session.perform(EchoFeature.say, input: .init(text: "meanwhile")) { order.record($0.output?.text ?? "failed") }
        // The first to finish (the whole list, if a busy machine held this task past the sleep).
        #expect(await order.waitForValues(count: 1)?.first == "meanwhile")
    }

    @Test("Math.fibonacci computes F(n) and rejects n out of range", arguments: [(0, UInt64(0)), (1, 1), (10, 55), (50, 12_586_269_025), (93, 12_200_160_415_121_876_738)])
    func fibonacci(n: Int, value: UInt64) async throws {
        #expect(try await session.perform(MathFeature.fibonacci, input: .init(n: n)).value == value)
    }

    @Test("Math.fibonacci fails invalidInput for a negative or too large n", arguments: [-1, 94])
    func fibonacciInvalid(n: Int) async {
        let outcome = await session.outcome(of: MathFeature.fibonacci, input: .init(n: n))
        #expect(outcome.error?.code == .invalidInput)
    }

    @Test("Math.fibonacci runs on its concurrent executor")
    func fibonacciRunsOffSessionMain() async {
        let queues = Recorder<Bool>()
        session.perform(MathFeature.fibonacci, input: .init(n: 5)) { _ in
            queues.record(session.mainExecutor.isCurrent)
        }
        #expect(await queues.waitForValues() == [false])
    }

    @Test("Sequence.next counts per session, safely from many threads")
    func sequence() async throws {
        #expect(try await session.perform(SequenceFeature.next).n == 1)
        #expect(try await session.perform(SequenceFeature.next).n == 2)
        let other = ActionSession(name: "\(session.name)-other")
        #expect(try await other.perform(SequenceFeature.next).n == 1)

        let counts = Recorder<Int>()
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            session.perform(SequenceFeature.next) { counts.record($0.output?.n ?? -1) }
        }
        let recorded = await counts.waitForValues(count: 20)
        #expect(Set(recorded ?? []) == Set(3...22))
    }

    @Test("Documents open, edit and close; close ends the stack")
    func documents() async throws {
        let opened = try await session.perform(DocumentsFeature.open, input: .init(name: "readme"))
        #expect(opened == DocumentContent(name: "readme", text: ""))
        let edited = try await session.perform(DocumentsFeature.edit, input: .init(name: "readme", text: "hello"))
        #expect(edited.text == "hello")
        let closed = await session.outcome(of: DocumentsFeature.close, input: .init(name: "readme"))
        #expect(closed.output == DocumentContent(name: "readme", text: "hello"))
        #expect(closed.closeActionStack)
        let notOpen = await session.outcome(of: DocumentsFeature.edit, input: .init(name: "readme", text: "again"))
        #expect(notOpen.error?.code == .documentNotOpen)
    }

    @Test("Fault.fail fails with actionFailed and the message")
    func fail() async {
        let outcome = await session.outcome(of: FaultFeature.fail, input: .init(message: "on purpose"))
        #expect(outcome.error == ActionError(code: .actionFailed, message: "on purpose"))
    }

    @Test("Fault.hang never completes, so it times out")
    func hang() async {
        let outcome = await session.outcome(of: FaultFeature.hang, input: NoInput(), deadline: .now + .milliseconds(50))
        #expect(outcome.error?.code == .timedOut)
    }

    @Test("Fault.block holds its thread for ms, then succeeds; ms out of range is invalid input")
    func block() async throws {
        let started = ContinuousClock.now
        let output = try await session.perform(FaultFeature.block, input: .init(ms: 60))
        #expect(output.blockedMs == 60)
        // (Dispatch's clock and ContinuousClock may differ by a tick: a little slack, not a bound.)
        #expect(ContinuousClock.now - started >= .milliseconds(55))
        for ms in [-1, BlockAction.maximumMilliseconds + 1] {
            #expect(await session.outcome(of: FaultFeature.block, input: .init(ms: ms)).error?.code == .invalidInput)
        }
    }
}
