/// A small, named piece of work a feature offers, performed through an ``ActionSession``.
///
/// Actions are types with static members, bound to a feature with ``Feature/action(_:name:)``.
/// `perform` receives a context and a completion object and must return either
/// `completion.completedSync(outcome)` or the handle from `completion.willCompleteAsync()`,
/// which it completes exactly once later, from any thread. Callers cannot tell the difference.
///
/// ```swift
/// enum SayAction: Action {
///     struct Input: Codable, Sendable { var text: String }
///     typealias Output = Input
///     static let description = "Repeats the text"
///     static func perform(context: ActionContext<Input>, completion: Completion) -> Completion.Status {
///         completion.completedSync(.success(context.input))
///     }
/// }
/// ```
public protocol Action: Sendable {
    /// What the action takes; ``NoInput`` when nothing.
    associatedtype Input: Codable & Sendable = NoInput
    /// What the action produces; ``NoOutput`` when nothing.
    associatedtype Output: Codable & Sendable = NoOutput

    /// A one-line description for catalogs and logs.
    static var description: String { get }

    /// Where the action runs; defaults to the session's main serial queue.
    static var executor: ActionExecutorSelection { get }

    /// How failures the action marks retryable are retried; defaults to ``ActionRetryPolicy/never``.
    static var retryPolicy: ActionRetryPolicy { get }

    /// The session `binding.perform(input:)` performs the action in; defaults to
    /// ``ActionSession/main``, as in Flint.
    static var defaultSession: ActionSession { get }

    /// The name ``AnalyticsReporting`` reports the action under; `nil` (the default) leaves it
    /// out of analytics, as in Flint. Declare it with its type,
    /// `static let analyticsID: String? = "document-open"`: a plain `String` property would
    /// not be this requirement's witness, and the default would win.
    static var analyticsID: String? { get }

    /// Does the work on the action's executor and reports the outcome through `completion`.
    static func perform(context: ActionContext<Input>, completion: ActionCompletion<Output>) -> ActionCompletion<Output>.Status
}

extension Action {
    /// The completion type this action's `perform` receives.
    public typealias Completion = ActionCompletion<Output>

    /// The session's main serial queue.
    public static var executor: ActionExecutorSelection { .sessionMain }

    /// No retries.
    public static var retryPolicy: ActionRetryPolicy { .never }

    /// ``ActionSession/main``.
    public static var defaultSession: ActionSession { .main }

    /// Not tracked.
    public static var analyticsID: String? { nil }
}
