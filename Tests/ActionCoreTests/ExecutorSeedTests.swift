import ActionCore
import Dispatch
import Foundation
import Testing

/// What each overlap probe did, in order, by the probe's name (tests run in parallel).
private let overlapLogs = OverlapLogs()

private final class OverlapLogs: @unchecked Sendable {
    private let lock = NSLock()
    private var recorders: [String: Recorder<String>] = [:]

    func recorder(_ name: String) -> Recorder<String> {
        lock.lock()
        defer { lock.unlock() }
        if let existing = recorders[name] { return existing }
        let made = Recorder<String>()
        recorders[name] = made
        return made
    }
}

/// Logs "start step" on the session's main queue, completes after `milliseconds` from a timer
/// (or never, with a negative delay), logging "end step" first.
private enum OverlapProbeAction: Action {
    struct Input: Codable, Sendable {
        var log: String
        var step: String
        var milliseconds: Int
    }
    typealias Output = String
    static let description = "Records when it starts and ends"

    static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        let input = context.input
        let log = overlapLogs.recorder(input.log)
        log.record("start \(input.step)")
        let pending = completion.willCompleteAsync()
        guard input.milliseconds >= 0 else { return pending }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(input.milliseconds)) {
            log.record("end \(input.step)")
            pending.completed(.success(input.step))
        }
        return pending
    }
}

/// Performs the probe named by its input in its own session, from its synchronous part, and
/// completes with the probe's outcome: a nested perform.
private enum NestingProbeAction: Action {
    typealias Input = OverlapProbeAction.Input
    typealias Output = String
    static let description = "Performs a probe inside itself"

    static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        let pending = completion.willCompleteAsync()
        context.session.perform(OverlapFeature.probe, input: context.input, completionQueue: .global()) { outcome in
            switch outcome {
            case .success(let step, _): pending.completed(.success("around \(step)"))
            case .failure(let error, _): pending.completed(.failure(error))
            }
        }
        return pending
    }
}

private enum OverlapFeature: Feature {
    static let description = "Overlap probes"
    static let probe = action(OverlapProbeAction.self)
    static let nesting = action(NestingProbeAction.self)

    static func prepare(actions: inout FeatureActions) {
        actions.declare(probe)
        actions.declare(nesting)
    }
}

/// The executor seed: `submit { end in }`, value-returning submits, `DispatchQueue` and
/// `OperationQueue` as executors, `MainDirectExecutor`, and a strictly serial session.
@Suite("Executors: the seed's model")
struct ExecutorSeedTests {
    private func session(strictlySerial: Bool, mainQueue: DispatchQueue? = nil) -> ActionSession {
        var configuration = ActionSessionConfiguration()
        configuration.strictlySerial = strictlySerial
        return ActionSession(name: "overlap-\(UUID().uuidString)", configuration: configuration, mainQueue: mainQueue)
    }

    /// Performs a probe; its outcome is recorded in `outcomes` and, as "outcome step", in the
    /// probe's log (on the action's queue, where the completion runs by default).
    private func perform(_ session: ActionSession, log: String, step: String, milliseconds: Int,
                         deadline: ContinuousClock.Instant? = nil, outcomes: Recorder<String>) {
        session.perform(OverlapFeature.probe, input: .init(log: log, step: step, milliseconds: milliseconds), deadline: deadline) { outcome in
            switch outcome {
            case .success(let step, _): outcomes.record(step)
            case .failure(let error, _): outcomes.record("\(error.code)")
            }
            overlapLogs.recorder(log).record("outcome \(step)")
        }
    }

    /// Two asynchronous actions of a strict session: the second starts only after the first has
    /// ended and its outcome reached the caller (on the session's queue).
    private func expectOneAfterAnother(mainQueue: DispatchQueue?) async {
        let log = UUID().uuidString
        let strict = session(strictlySerial: true, mainQueue: mainQueue)
        let outcomes = Recorder<String>()
        perform(strict, log: log, step: "a", milliseconds: 150, outcomes: outcomes)
        perform(strict, log: log, step: "b", milliseconds: 10, outcomes: outcomes)
        #expect(await outcomes.waitForValues(count: 2) == ["a", "b"])
        #expect(await overlapLogs.recorder(log).waitForValues(count: 6) == ["start a", "end a", "outcome a", "start b", "end b", "outcome b"])
    }

    @Test func aStrictlySerialSessionRunsAsynchronousActionsOneAfterAnother() async {
        await expectOneAfterAnother(mainQueue: nil)
    }

    @Test func aStrictlySerialSessionOnTheMainQueueRunsAsynchronousActionsOneAfterAnother() async {
        // The main queue cannot be suspended: the session's own line serialises its actions.
        await expectOneAfterAnother(mainQueue: .main)
    }

    @Test func anActionThatDropsItsCompletionFreesAStrictSession() async {
        // No deadline: the dropped completion, not a timer, frees the line. Its caller gets no
        // outcome (nothing completed it), and the next action runs.
        let log = UUID().uuidString
        let strict = session(strictlySerial: true)
        let outcomes = Recorder<String>()
        perform(strict, log: log, step: "dropped", milliseconds: -1, outcomes: outcomes)
        perform(strict, log: log, step: "next", milliseconds: 1, outcomes: outcomes)
        #expect(await outcomes.waitForValues(count: 1) == ["next"])
        #expect(overlapLogs.recorder(log).values.prefix(3) == ["start dropped", "start next", "end next"])
    }

    @Test func aPerformNestedInAStrictActionRunsInsideIt() async {
        // The outer action completes with the inner one's outcome: were the inner perform to wait
        // for the outer's turn to end, neither would ever complete (the deadline would say so).
        let log = UUID().uuidString
        let strict = session(strictlySerial: true)
        let outcome = Recorder<String>()
        strict.perform(OverlapFeature.nesting, input: .init(log: log, step: "inner", milliseconds: 10), deadline: .now + .seconds(5)) { result in
            switch result {
            case .success(let output, _): outcome.record(output)
            case .failure(let error, _): outcome.record("\(error.code)")
            }
        }
        #expect(await outcome.waitForValues(count: 1) == ["around inner"])
        #expect(overlapLogs.recorder(log).values == ["start inner", "end inner"])
    }

    @Test func aDefaultSessionSerialisesOnlyTheSynchronousPart() async {
        let log = UUID().uuidString
        let relaxed = session(strictlySerial: false)
        let outcomes = Recorder<String>()
        perform(relaxed, log: log, step: "a", milliseconds: 300, outcomes: outcomes)
        perform(relaxed, log: log, step: "b", milliseconds: 10, outcomes: outcomes)
        #expect(await outcomes.waitForValues(count: 2) == ["b", "a"])
        #expect(Array(overlapLogs.recorder(log).values.prefix(2)) == ["start a", "start b"])
    }

    @Test func anActionThatNeverCompletesFreesAStrictSessionAtItsDeadline() async {
        let log = UUID().uuidString
        let strict = session(strictlySerial: true)
        let outcomes = Recorder<String>()
        perform(strict, log: log, step: "stuck", milliseconds: -1, deadline: .now + .milliseconds(100), outcomes: outcomes)
        perform(strict, log: log, step: "next", milliseconds: 1, outcomes: outcomes)
        #expect(await outcomes.waitForValues(count: 2) == ["timedOut", "next"])
        #expect(overlapLogs.recorder(log).values.filter { !$0.hasPrefix("outcome") } == ["start stuck", "start next", "end next"])
    }

    @Test func aSerialExecutorStartsNothingElseUntilEnd() async {
        let executor = SerialQueueExecutor(label: "seed.end")
        let steps = Recorder<String>()
        executor.submit { end in
            steps.record("first starts")
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) {
                steps.record("first ends")
                end()
            }
        }
        executor.submit { steps.record("second") }
        #expect(await steps.waitForValues(count: 3) == ["first starts", "first ends", "second"])
    }

    @Test func nestedSubmitsOnOneSerialExecutorDoNotDeadlock() async {
        // The seed's deadlock example: a nested submit on the same serial executor runs inline.
        let executor = SerialQueueExecutor(label: "seed.nested")
        let steps = Recorder<String>()
        executor.submit { end in
            executor.submit { innerEnd in
                steps.record("inner")
                innerEnd()
            }
            steps.record("outer")
            end()
        }
        #expect(await steps.waitForValues(count: 2) == ["inner", "outer"])
    }

    @Test func submitReturnsTheValueOrTheError() async throws {
        struct Failure: Error {}
        let executor = SerialQueueExecutor(label: "seed.value")
        let onQueue = try await executor.value { executor.isCurrent }
        #expect(onQueue)
        await #expect(throws: Failure.self) { try await executor.value { () throws -> Int in throw Failure() } }
        let resolved: String = try await executor.value(resolving: { resolve in
            DispatchQueue.global().async { resolve(.success("later")) }
        })
        #expect(resolved == "later")
    }

    @Test func aDispatchQueueIsAnExecutor() async {
        let queue = DispatchQueue(label: "seed.dispatch")
        let executor: any ActionExecutor = queue
        #expect(executor.name == "seed.dispatch")
        #expect(!executor.isCurrent)
        let seen = Recorder<Bool>()
        executor.submit { seen.record(executor.isCurrent) }
        #expect(await seen.waitForValues(count: 1) == [true])
    }

    @Test func anOperationQueueIsAnExecutor() async {
        let queue = OperationQueue()
        queue.name = "seed.operations"
        let executor: any ActionExecutor = queue
        #expect(executor.name == "seed.operations")
        #expect(!executor.isCurrent)
        let seen = Recorder<Bool>()
        executor.submit { seen.record(executor.isCurrent) }
        #expect(await seen.waitForValues(count: 1) == [true])
    }

    @Test func theMainDirectExecutorRunsOnTheMainQueue() async {
        let executor = MainDirectExecutor()
        let seen = Recorder<String>()
        DispatchQueue.global().async {
            #expect(!executor.isCurrent)
            executor.submit {
                seen.record("on main \(DispatchQueue.main.isCurrent), current \(executor.isCurrent)")
                executor.submit { seen.record("nested inline") }
                seen.record("after nested")
            }
        }
        #expect(await seen.waitForValues(count: 3) == ["on main true, current true", "nested inline", "after nested"])
    }
}
