/// An action that carries out a request from outside the program, an *intent*: Flint's
/// `IntentAction`, which fulfils Siri intents in an Intents extension.
///
/// Siri's `INIntent` is Apple's, and absent where ActionBus runs, so ``Intent`` is any type the
/// host receives requests as (a voice assistant's, a shortcut's, a webhook's). The action says
/// how an intent becomes its input and, for hosts that offer shortcuts, how an input becomes an
/// intent; its output is the intent's response. As in Flint, intent actions run on a serial
/// queue of their own, never the main queue (a host's intent handlers are called off it), and
/// perform by default in a session of their own, ``ActionSession/intents``, so that their stacks
/// and observer events stand apart from the user's.
///
/// ```swift
/// enum AddNoteAction: IntentAction {
///     struct Intent: Sendable { var spokenText: String }
///     struct Input: Codable, Sendable { var text: String }
///     static let description = "Adds a note"
///     static func input(fromIntent intent: Intent) -> Input? {
///         intent.spokenText.isEmpty ? nil : Input(text: intent.spokenText)
///     }
///     static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status { … }
/// }
/// try NotesFeature.add.perform(intent: received) { outcome in … }
/// ```
public protocol IntentAction: Action {
    /// The request the host receives (Flint: the `INIntent` subclass Xcode generates).
    associatedtype Intent: Sendable

    /// The input to perform the action with for `intent`, or `nil` when the action cannot
    /// carry it out (performing it then fails ``ActionError/Code/invalidInput``).
    static func input(fromIntent intent: Intent) throws(ActionError) -> Input?

    /// The intent that performs the action with `input` (what a host offers as a shortcut), or
    /// `nil` for none; defaults to `nil`.
    static func intent(withInput input: Input) throws(ActionError) -> Intent?
}

extension IntentAction {
    /// The intents session's serial queue, whichever session performs the action.
    public static var executor: ActionExecutorSelection { .executor(ActionSession.intents.mainExecutor) }

    /// ``ActionSession/intents``.
    public static var defaultSession: ActionSession { .intents }

    /// No intent: the action offers no shortcut.
    public static func intent(withInput input: Input) throws(ActionError) -> Intent? { nil }
}
