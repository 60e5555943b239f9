import ActionBusTestSupport
import ActionCore
import ExampleFeatures
import Foundation
import Testing

/// Retry policies: retryable failures are tried again with jittered exponential backoff, within
/// the deadline; the caller sees one outcome.
@Suite("Action retries")
struct ActionRetryTests {
    let session = ActionSession(name: "retries-\(UUID().uuidString)", catalog: ExampleApp.catalog)

    @Test func retryableFailuresAreRetriedUntilOneSucceeds() async throws {
        let observer = TestObserver()
        session.addObserver(observer)
        let key = UUID().uuidString
        let output = try await session.perform(FaultFeature.flaky, input: .init(key: key, failures: 3))
        #expect(output.attempts == 4)
        // Each attempt is a perform of its own for observers. Their events arrive on the
        // observers' queue, after the caller has its output: awaited until every attempt's
        // completion is in (each after its own start), then counted.
        #expect(await completions(of: observer, count: 4))
        #expect(starts(in: observer) == 4)
    }

    @Test func theLastFailureIsDeliveredWhenAttemptsRunOut() async {
        let key = UUID().uuidString
        let outcome = await session.outcome(of: FaultFeature.flaky, input: .init(key: key, failures: 10))
        #expect(outcome.error?.code == .transientFailure)
        #expect(outcome.error?.message == "attempt 4 failed on purpose")
        #expect(outcome.error?.isRetryable == true)
    }

    @Test func failuresNotMarkedRetryableAreNotRetried() async {
        let observer = TestObserver()
        session.addObserver(observer)
        let outcome = await session.outcome(of: FaultFeature.fail, input: .init(message: "once"))
        #expect(outcome.error?.code == .actionFailed)
        #expect(await completions(of: observer, count: 1))
        #expect(starts(in: observer) == 1)
    }

    @Test func noRetryStartsPastTheDeadline() async {
        let key = UUID().uuidString
        // The first backoff is 5–10 ms; a 2 ms deadline leaves no room for it.
        let outcome = await session.outcome(of: FaultFeature.flaky, input: .init(key: key, failures: 1), deadline: .now + .milliseconds(2))
        #expect(outcome.error?.code == .transientFailure || outcome.error?.code == .timedOut)
        #expect(outcome.error?.message != "attempt 2 failed on purpose")
    }

    @Test func cancellingDuringTheBackoffEndsThePerformAtOnce() async throws {
        let policySession = ActionSession(name: "slow-retries-\(UUID().uuidString)", catalog: ActionCatalog(features: [SlowRetryFeature.self]))
        let cancellation = ActionCancellation()
        let outcomes = Recorder<ActionOutcome<NoOutput>>()
        // A long deadline and backoff: a loaded machine may call cancel() late, never too late.
        policySession.perform(SlowRetryFeature.failing, deadline: .now + .seconds(600), cancellation: cancellation) { outcomes.record($0) }
        try #require(await waitUntil { AlwaysRetryableAction.attempts(in: policySession) >= 1 })
        cancellation.cancel()
        let delivered = try #require(await outcomes.waitForValues(timeout: .seconds(5)))
        #expect(delivered.first?.error?.code == .cancelled)
        #expect(AlwaysRetryableAction.attempts(in: policySession) == 1)
    }

    // Each attempt's perform is held by the cancellation (its handler) and holds the handler that
    // decides on the next attempt: that handler must not hold the cancellation back, or the three
    // keep each other, the input and the caller's completion alive after the outcome.

    @Test func aRetriedPerformIsReleasedOnceItsOutcomeIsDelivered() async throws {
        let released = ReleaseProbe.Watch()
        let outcomes = Recorder<JSONBytesOutcome>()
        do {
            let probe = ReleaseProbe(released)
            // Without a cancellation: the forwarded perform makes one for its retries.
            let key = UUID().uuidString
            _ = session.performForwarding(named: "Fault.flaky", jsonInput: Array(#"{"key":"\#(key)","failures":1}"#.utf8)) { outcome in
                withExtendedLifetime(probe) { outcomes.record(outcome) }
            }
        }
        let delivered = try #require(await outcomes.waitForValues(timeout: .seconds(5)))
        #expect(delivered.first?.error == nil)
        #expect(await waitUntil(timeout: .seconds(5)) { released.isReleased })
    }

    @Test func aRetriedPerformWithTheCallersCancellationIsReleasedWithIt() async throws {
        let released = ReleaseProbe.Watch()
        let outcomes = Recorder<ErasedActionOutcome>()
        do {
            let probe = ReleaseProbe(released)
            let cancellation = ActionCancellation()
            let key = UUID().uuidString
            session.perform(named: "Fault.flaky", jsonInput: Data(#"{"key":"\#(key)","failures":1}"#.utf8), cancellation: cancellation) { outcome in
                withExtendedLifetime(probe) { outcomes.record(outcome) }
            }
            _ = try #require(await outcomes.waitForValues(timeout: .seconds(5)))
        }
        #expect(outcomes.first?.error == nil)
        #expect(await waitUntil(timeout: .seconds(5)) { released.isReleased })
    }

    @Test(.seeded) func backoffGrowsExponentiallyWithinItsJitterAndCap() {
        let policy = ActionRetryPolicy(maxAttempts: 10, initialBackoff: .milliseconds(100), multiplier: 2, maxBackoff: .seconds(1), jitter: 0.5)
        var generator = SeededRandom()
        for _ in 0..<200 {
            let second = policy.backoff(beforeAttempt: 2, using: &generator)
            let third = policy.backoff(beforeAttempt: 3, using: &generator)
            let late = policy.backoff(beforeAttempt: 60, using: &generator)
            #expect(second >= .milliseconds(50) && second <= .milliseconds(100))
            #expect(third >= .milliseconds(100) && third <= .milliseconds(200))
            #expect(late >= .milliseconds(500) && late <= .seconds(1))
        }
        let steady = ActionRetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(40), jitter: 0)
        #expect(steady.backoff(beforeAttempt: 3) == .milliseconds(80))
        #expect(ActionRetryPolicy.never.maxAttempts == 1)
        #expect(ActionRetryPolicy(maxAttempts: 0, initialBackoff: .zero).maxAttempts == 1)
    }

    @Test func errorsDecodeWithoutTheRetryableField() throws {
        let error = try JSONDecoder().decode(ActionError.self, from: Data(#"{"code":"actionFailed","message":"m"}"#.utf8))
        #expect(error == ActionError(code: .actionFailed, message: "m"))
        #expect(!error.isRetryable)
    }
}

/// The feature of ``AlwaysRetryableAction``.
enum SlowRetryFeature: Feature {
    static let description = "Retries slowly"
    static let failing = action(AlwaysRetryableAction.self)

    static func prepare(actions: inout FeatureActions) {
        actions.declare(failing)
    }
}

/// The session of each attempt of ``AlwaysRetryableAction``: each test performs in a session of
/// its own, so suites running in parallel do not count each other's attempts.
private let attemptSessions = Recorder<String>()

/// An action whose every attempt fails retryably, with a backoff (300 s) no test waits out.
enum AlwaysRetryableAction: Action {
    typealias Input = NoInput
    typealias Output = NoOutput
    static let description = "Always fails retryably"
    static let retryPolicy = ActionRetryPolicy(maxAttempts: 5, initialBackoff: .seconds(300), jitter: 0)

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        attemptSessions.record(context.session.name)
        return completion.completedSync(.failure(ActionError(code: .actionFailed, message: "try later", retryable: true)))
    }
}

extension AlwaysRetryableAction {
    /// How many attempts ran in `session`.
    static func attempts(in session: ActionSession) -> Int {
        attemptSessions.values.count { $0 == session.name }
    }
}

/// An object whose release a test watches: captured by a completion, it is released with it.
final class ReleaseProbe: Sendable {
    final class Watch: @unchecked Sendable {
        private let lock = NSLock()
        private var released = false

        var isReleased: Bool {
            lock.lock()
            defer { lock.unlock() }
            return released
        }

        func markReleased() {
            lock.lock()
            released = true
            lock.unlock()
        }
    }

    private let watch: Watch

    init(_ watch: Watch) { self.watch = watch }

    deinit { watch.markReleased() }
}

/// Waits (bounded) until `observer` has seen `count` completions: observers hear of a perform on
/// a queue of their own, after its caller.
private func completions(of observer: TestObserver, count: Int) async -> Bool {
    await waitUntil { observer.events.values.filter { if case .didComplete = $0 { true } else { false } }.count >= count }
}

/// How many performs `observer` saw begin.
private func starts(in observer: TestObserver) -> Int {
    observer.events.values.filter { if case .willBegin = $0 { true } else { false } }.count
}
