import Logging

/// How an ``ActionSession`` behaves; a value with sensible defaults.
///
/// ```swift
/// var configuration = ActionSessionConfiguration()
/// configuration.defaultTimeout = .seconds(5)
/// ```
public struct ActionSessionConfiguration: Sendable {
    /// How long a perform may take when the caller gives no deadline; `nil` (the default, as in
    /// Flint) waits for the action however long it takes.
    public var defaultTimeout: Duration?
    /// The cap on the entries of one action stack.
    public var maximumStackEntries = ActionStackTracker.defaultMaximumEntries
    /// The logger for dispatch problems and for actions' context loggers.
    public var logger = Logger(label: "ActionCore")
    /// The timer that ends performs at their deadlines (one timer for all of them).
    public var deadlineTimer = ActionDeadlineTimer.shared
    /// Whether the session's main-queue actions run one at a time *to their outcome*: an action
    /// that completes asynchronously holds the session until it completes (or its perform ends,
    /// at its deadline or cancellation, or its completion is dropped), so two asynchronous
    /// actions of the session never overlap, and each outcome's handler on the session's queue
    /// runs before the next action starts. A perform nested in a running action's synchronous
    /// part runs inside it, as on any serial queue. Off by default, as in Flint, where the
    /// queue serialises only the synchronous part of each action. Actions on executors of their
    /// own are not affected.
    public var strictlySerial = false

    /// The defaults: no timeout, 100 stack entries.
    public init() {}
}
