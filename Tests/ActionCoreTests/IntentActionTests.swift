import ActionCore
import Dispatch
import Testing

/// Set on the intents session's queue, so an action can say it ran there without asking
/// ActionCore.
private let intentsQueueKey: DispatchSpecificKey<String> = {
    let key = DispatchSpecificKey<String>()
    ActionSession.intents.mainExecutor.queue.setSpecific(key: key, value: "intents")
    return key
}()

/// What a host receives: here, spoken text.
private struct NoteIntent: Sendable {
    var spokenText: String
}

private struct NoteAdded: Codable, Sendable, Equatable {
    var text: String
    var queue: String?
    var session: String
}

/// Flint's `IntentAction`: an intent becomes the input, the output is the response.
private enum AddNoteAction: IntentAction {
    typealias Intent = NoteIntent
    struct Input: Codable, Sendable { var text: String }
    typealias Output = NoteAdded
    static let description = "Adds a note"

    static func input(fromIntent intent: NoteIntent) throws(ActionError) -> Input? {
        if intent.spokenText == "mumble" { throw ActionError(code: ActionError.Code("unheard"), message: "say again") }
        return intent.spokenText.isEmpty ? nil : Input(text: intent.spokenText)
    }

    static func intent(withInput input: Input) -> NoteIntent? {
        NoteIntent(spokenText: input.text)
    }

    static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
        let queue = DispatchQueue.getSpecific(key: intentsQueueKey)
        return completion.completedSync(.success(NoteAdded(text: context.input.text, queue: queue, session: context.session.name)))
    }
}

/// An intent action that offers no shortcut.
private enum ReadNotesAction: IntentAction {
    typealias Intent = NoteIntent
    static let description = "Reads the notes"

    static func input(fromIntent intent: NoteIntent) -> NoInput? { NoInput() }

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(NoOutput()))
    }
}

private enum NotesFeature: Feature {
    static let description = "Notes, by voice"
    static let add = action(AddNoteAction.self)
    static let read = action(ReadNotesAction.self)

    static func prepare(actions: inout FeatureActions) {
        actions.declare(add)
        actions.declare(read)
    }
}

/// Flint's `IntentAction`, without Siri: the intent is the host's type, its actions run on the
/// intents queue, in the intents session unless performed in another.
@Suite("Intent actions")
struct IntentActionTests {
    @Test func anIntentRunsOnTheIntentsQueueInTheIntentsSession() async throws {
        _ = intentsQueueKey
        #expect(ActionSession.intents.name == "Intents")
        #expect(ActionSession.intents.userInitiated)
        let added = try await NotesFeature.add.perform(intent: NoteIntent(spokenText: "milk"))
        #expect(added == NoteAdded(text: "milk", queue: "intents", session: "Intents"))
    }

    @Test func anIntentActionPerformedInAnotherSessionStillRunsOnTheIntentsQueue() async throws {
        _ = intentsQueueKey
        let session = ActionSession(name: "other")
        let added = try await session.perform(NotesFeature.add, input: .init(text: "eggs"))
        #expect(added == NoteAdded(text: "eggs", queue: "intents", session: "other"))
    }

    @Test func theCallbackFormDeliversTheResponse() async throws {
        let added = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<NoteAdded, any Error>) in
            do {
                try NotesFeature.add.perform(intent: NoteIntent(spokenText: "bread")) { outcome in
                    continuation.resume(with: outcome.result.mapError { $0 as any Error })
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        #expect(added.text == "bread")
    }

    @Test func anIntentWithNoInputIsRefusedAndTheActionDoesNotRun() throws {
        do {
            try NotesFeature.add.perform(intent: NoteIntent(spokenText: "")) { _ in
                Issue.record("the completion of a refused intent was called")
            }
            Issue.record("an intent with no input was performed")
        } catch {
            #expect(error.code == .invalidInput)
        }
    }

    @Test func theConversionsErrorIsThrown() async {
        do {
            _ = try await NotesFeature.add.perform(intent: NoteIntent(spokenText: "mumble"))
            Issue.record("an intent whose conversion threw was performed")
        } catch {
            #expect(error.code == ActionError.Code("unheard"))
        }
    }

    @Test func anActionMakesTheIntentForAnInputOrNone() throws {
        #expect(AddNoteAction.intent(withInput: .init(text: "tea"))?.spokenText == "tea")
        #expect(try ReadNotesAction.intent(withInput: NoInput()) == nil)
    }
}
