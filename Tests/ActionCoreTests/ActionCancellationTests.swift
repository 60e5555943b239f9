import ActionCore
import ExampleFeatures
import Foundation
import Testing

/// Cancelling a perform from outside through an ``ActionCancellation``.
@Suite("Action cancellation")
struct ActionCancellationTests {
    let session = ActionSession(name: "cancel-\(UUID().uuidString)", catalog: ExampleApp.catalog)

    @Test func cancellingARunningActionDeliversCancelledAndTheActionSeesIt() async throws {
        let cancellation = ActionCancellation()
        let outcomes = Recorder<ErasedActionOutcome>()
        session.perform(named: "Clock.sleep", jsonInput: Data(#"{"ms":60000}"#.utf8), cancellation: cancellation) {
            outcomes.record($0)
        }
        cancellation.cancel()
        let delivered = try #require(await outcomes.waitForValues(timeout: .seconds(5)))
        #expect(delivered.first?.error?.code == .cancelled)
        #expect(cancellation.isCancelled)
    }

    @Test func oneCancellationSharedByThreePerformsCancelsEveryOne() async throws {
        // The first handler has a slot of its own, the others go to a list: all must run.
        let cancellation = ActionCancellation()
        let outcomes = Recorder<ErasedActionOutcome>()
        for _ in 0..<3 {
            session.perform(named: "Clock.sleep", jsonInput: Data(#"{"ms":60000}"#.utf8), cancellation: cancellation) {
                outcomes.record($0)
            }
        }
        cancellation.cancel()
        let delivered = try #require(await outcomes.waitForValues(count: 3, timeout: .seconds(5)))
        #expect(delivered.count == 3)
        #expect(delivered.allSatisfy { $0.error?.code == .cancelled })
    }

    @Test func cancellingBeforeThePerformStartsSkipsTheAction() async throws {
        let cancellation = ActionCancellation()
        cancellation.cancel()
        let outcomes = Recorder<ErasedActionOutcome>()
        let key = UUID().uuidString
        session.perform(named: "Fault.flaky", jsonInput: Data(#"{"key":"\#(key)","failures":0}"#.utf8), cancellation: cancellation) {
            outcomes.record($0)
        }
        let delivered = try #require(await outcomes.waitForValues(timeout: .seconds(5)))
        #expect(delivered.first?.error?.code == .cancelled)
        // The action never ran: a later perform of the same key is its first attempt.
        let output = try await session.perform(FaultFeature.flaky, input: .init(key: key, failures: 0))
        #expect(output.attempts == 1)
    }

    @Test func cancellingAfterTheOutcomeChangesNothing() async throws {
        let cancellation = ActionCancellation()
        let outcomes = Recorder<ErasedActionOutcome>()
        session.perform(named: "Echo.say", jsonInput: Data(#"{"text":"done"}"#.utf8), cancellation: cancellation) {
            outcomes.record($0)
        }
        _ = try #require(await outcomes.waitForValues(timeout: .seconds(5)))
        cancellation.cancel()
        try await Task.sleep(for: .milliseconds(20))
        #expect(outcomes.count == 1)
        #expect(outcomes.first?.error == nil)
    }

    // A forwarded perform (a worker's path) is cancelled through the handle it returns: the
    // perform itself for a single attempt, a cancellation of its own for an action with retries.

    @Test func theForwardedPerformsHandleCancelsARunningActionOnce() async throws {
        let outcomes = Recorder<JSONBytesOutcome>()
        let handle = session.performForwarding(named: "Clock.sleep", jsonInput: Array(#"{"ms":60000}"#.utf8)) {
            outcomes.record($0)
        }
        handle.cancel()
        handle.cancel()
        let delivered = try #require(await outcomes.waitForValues(timeout: .seconds(5)))
        #expect(delivered.first?.error?.code == .cancelled)
        try await Task.sleep(for: .milliseconds(20))
        #expect(outcomes.count == 1)
    }

    @Test func theForwardedPerformsHandleCancelsARetryingActionDuringItsBackoff() async throws {
        let retrying = ActionSession(name: "handle-retries-\(UUID().uuidString)", catalog: ActionCatalog(features: [SlowRetryFeature.self]))
        let outcomes = Recorder<JSONBytesOutcome>()
        let handle = retrying.performForwarding(
            named: SlowRetryFeature.failing.fullName, jsonInput: [], deadline: .now + .seconds(600)
        ) { outcomes.record($0) }
        // The first attempt failed and the next waits 300 s: only the handle can end it now.
        try #require(await waitUntil { AlwaysRetryableAction.attempts(in: retrying) >= 1 })
        handle.cancel()
        let delivered = try #require(await outcomes.waitForValues(timeout: .seconds(5)))
        #expect(delivered.first?.error?.code == .cancelled)
        #expect(AlwaysRetryableAction.attempts(in: retrying) == 1)
    }

    @Test func theHandleOfAPerformThatNeverStartedCancelsNothing() async throws {
        let outcomes = Recorder<JSONBytesOutcome>()
        let handle = session.performForwarding(named: "Echo.nothingLikeThis", jsonInput: []) { outcomes.record($0) }
        // Delivered before the call returned, on this thread.
        #expect(outcomes.first?.error?.code == .unknownAction)
        handle.cancel()
        #expect(outcomes.count == 1)
    }
}
