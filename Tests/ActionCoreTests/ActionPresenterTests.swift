import ActionCore
import ExampleFeatures
import Testing

/// Records what it was handed and on which queue.
private struct RecordingPresenter: ActionPresenter {
    let shown = Recorder<String>()

    func present(_ output: SayAction.Output) {
        shown.record("\(output.text) on \(TaggedQueue.currentTag ?? "nil")")
    }

    func presentFailure(_ error: ActionError) {
        shown.record("\(error.code) on \(TaggedQueue.currentTag ?? "nil")")
    }
}

/// Flint's presenters on the caller's side: the outcome is handed to a presenter on the queue the
/// caller chose.
@Suite("Presenters")
struct ActionPresenterTests {
    @Test func thePresenterGetsTheOutputOnTheChosenQueue() async {
        let session = ActionSession(name: "presenting")
        let presenter = RecordingPresenter()
        session.perform(EchoFeature.say, input: .init(text: "shown"), completionQueue: TestQueues.completion.queue, presenter: presenter)
        #expect(await presenter.shown.waitForValues(count: 1) == ["shown on completion"])
    }

    @Test func aFailureIsPresentedAsAFailure() async {
        let outcome: ActionOutcome<SayAction.Output> = .failure(ActionError(code: .invalidInput, message: "no"))
        let presenter = RecordingPresenter()
        outcome.present(to: presenter)
        #expect(presenter.shown.values == ["invalidInput on nil"])
    }
}
