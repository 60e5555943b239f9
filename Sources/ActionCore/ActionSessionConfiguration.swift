import Logging

/// How an ``ActionSession`` behaves; a value with sensible defaults.
///
/// ```swift
/// var configuration = ActionSessionConfiguration()
/// configuration.defaultTimeout = .seconds(5)
/// ```
public struct ActionSessionConfiguration: Sendable {
    /// How long a perform may take when the caller gives no deadline; `nil` waits forever.
    public var defaultTimeout: Duration? = .seconds(30)
    /// The cap on the entries of one action stack.
    public var maximumStackEntries = ActionStackTracker.defaultMaximumEntries
    /// The logger for dispatch problems and for actions' context loggers.
    public var logger = Logger(label: "ActionCore")
    /// The timer that ends performs at their deadlines (one timer for all of them).
    public var deadlineTimer = ActionDeadlineTimer.shared

    /// The defaults: 30 s timeout, 100 stack entries.
    public init() {}
}
