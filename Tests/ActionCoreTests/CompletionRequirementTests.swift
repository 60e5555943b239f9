import ActionCore
import ExampleFeatures
import Testing

/// Flint's caller-made completion requirement: a handler on the caller's queue, told whether
/// the action completed asynchronously.
@Suite("Completion requirements")
struct CompletionRequirementTests {
    let session = ActionSession(name: "requirements", catalog: ExampleApp.catalog)

    private func perform<F: Feature, A: Action>(
        _ binding: ActionBinding<F, A>, _ input: A.Input, deadline: ContinuousClock.Instant? = nil
    ) async -> (String, Bool, String?)? {
        let seen = Recorder<(String, Bool, String?)>()
        let requirement = ActionCompletionRequirement<A.Output>(queue: TestQueues.completion.queue) { outcome, completedAsync in
            seen.record((outcome.error.map { "\($0.code)" } ?? "success", completedAsync, TaggedQueue.currentTag))
        }
        session.perform(binding, input: input, deadline: deadline, completionRequirement: requirement)
        return await seen.waitForValues(count: 1)?.first
    }

    @Test func aSynchronousCompletionIsReportedAsSuch() async {
        let result = await perform(EchoFeature.say, .init(text: "now"))
        #expect(result?.0 == "success")
        #expect(result?.1 == false)
        #expect(result?.2 == "completion")
    }

    @Test func anAsynchronousCompletionIsReportedAsSuch() async {
        let result = await perform(ClockFeature.sleep, .init(ms: 5))
        #expect(result?.0 == "success")
        #expect(result?.1 == true)
        #expect(result?.2 == "completion")
    }

    @Test func aTimeoutIsAnAsynchronousEnd() async {
        let result = await perform(FaultFeature.hang, NoInput(), deadline: .now + .milliseconds(50))
        #expect(result?.0 == "timedOut")
        #expect(result?.1 == true)
    }
}
