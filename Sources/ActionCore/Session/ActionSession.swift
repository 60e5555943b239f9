import Dispatch
import Logging
import Locking

/// Performs actions and tracks their action stacks: Flint's `ActionSession`.
///
/// A session has a name (one per user, window or document), a user-initiated flag and a main
/// serial queue for actions that declare ``ActionExecutorSelection/sessionMain``. It can be used
/// from any thread:
/// - the action always runs on the executor it declares;
/// - completion runs on the caller's `completionQueue`, else on the `OperationQueue` the
///   caller runs in, else on the action's executor (``CallerQueue``'s rule), without an extra
///   hop when already there;
/// - synchronous and asynchronous completion look the same to the caller;
/// - at most one outcome is delivered, and exactly one when the perform has a deadline: one
///   that does not complete by then fails with ``ActionError/Code/timedOut``; extra or late
///   completions are only reported. Without a deadline (the default, as in Flint), an action
///   that drops its completion delivers nothing.
public final class ActionSession: Sendable {
    /// The session's name, recorded in action stacks and observer events.
    public let name: String
    /// Whether this session's actions are initiated by a user.
    public let userInitiated: Bool
    /// The actions this session can perform by name.
    public let catalog: ActionCatalog
    /// The session's configuration.
    public let configuration: ActionSessionConfiguration
    /// The session's main serial queue, for actions declaring ``ActionExecutorSelection/sessionMain``.
    public let mainExecutor: SerialQueueExecutor

    @usableFromInline let logger: Logger
    @usableFromInline let observers: ObserverNotifier
    let stackTracker: Locked<ActionStackTracker>
    /// The line its main-queue actions wait in when it is strictly serial.
    @usableFromInline let serialLine: SerialActionLine?
    /// Told of every perform its host did not request (actions an action performed): a worker
    /// passes them on so that the coordinator's stacks hold them too.
    let unrequestedPerformReporter: UnrequestedPerformReporter?

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - name: The session's name.
    ///   - catalog: The actions it can perform by name (typed performs need no catalog).
    ///   - userInitiated: Whether its actions are initiated by a user.
    ///   - configuration: Timeouts, stack cap and logger.
    ///   - mainQueue: The serial queue for actions declaring ``ActionExecutorSelection/sessionMain``;
    ///     `nil` makes one for the session (``ActionSession/main`` uses the main queue).
    public convenience init(
        name: String,
        catalog: ActionCatalog = ActionCatalog(),
        userInitiated: Bool = true,
        configuration: ActionSessionConfiguration = ActionSessionConfiguration(),
        mainQueue: DispatchQueue? = nil
    ) {
        self.init(name: name, catalog: catalog, userInitiated: userInitiated, configuration: configuration, mainQueue: mainQueue,
                  unrequestedPerformReporter: nil)
    }

    /// Creates a session hosted for others (a worker's): `unrequestedPerformReporter` is told of
    /// every perform that did not come through
    /// ``performForwarding(named:jsonInput:deadline:cancellation:forward:)``, on the thread that
    /// ended it. Such a session keeps no action stacks of its own (its host's coordinator keeps
    /// them), so ``actionStacks`` stays empty and ``end()`` closes nothing.
    ///
    /// With `coalescesMainQueue` (and no `mainQueue`), performs submitted to the session's own
    /// queue while earlier ones wait start in one block with them, in order (see
    /// ``SerialQueueExecutor``'s `init(queue:coalescing:)`).
    package init(
        name: String,
        catalog: ActionCatalog,
        userInitiated: Bool,
        configuration: ActionSessionConfiguration,
        mainQueue: DispatchQueue?,
        coalescesMainQueue: Bool = false,
        unrequestedPerformReporter: UnrequestedPerformReporter?
    ) {
        self.unrequestedPerformReporter = unrequestedPerformReporter
        self.name = name
        self.catalog = catalog
        self.userInitiated = userInitiated
        self.configuration = configuration
        self.mainExecutor = SerialQueueExecutor(
            queue: mainQueue ?? DispatchQueue(label: "ActionCore.session.\(name)"), coalescing: coalescesMainQueue
        )
        self.serialLine = configuration.strictlySerial ? SerialActionLine(executor: mainExecutor) : nil
        var logger = configuration.logger
        logger[metadataKey: "action.session"] = "\(name)"
        self.logger = logger
        self.observers = ObserverNotifier(label: "ActionCore.session.\(name).observers", parent: ActionDispatcher.shared.observers)
        self.stackTracker = Locked(ActionStackTracker(maximumEntries: configuration.maximumStackEntries))
    }

    /// The default session, as in Flint: named `main`, user-initiated, its actions that declare
    /// ``ActionExecutorSelection/sessionMain`` run on the main queue. ``Action/defaultSession``
    /// is this one unless an action says otherwise, and `binding.perform(input:)` uses it.
    ///
    /// The main queue runs only while something services it (a run loop on the main thread, or
    /// `dispatchMain()`, which an `async` `main` uses): a server that blocks its main thread
    /// should give its actions a session of their own.
    public static let main = ActionSession(name: "main", mainQueue: .main)

    /// Adds an observer of every perform of this session.
    public func addObserver(_ observer: any ActionDispatchObserver) {
        observers.add(observer)
    }

    /// The executor an action declared, resolved for this session.
    @usableFromInline
    func executor(for selection: ActionExecutorSelection) -> any ActionExecutor {
        switch selection {
        case .sessionMain:
            return mainExecutor
        case .executor(let executor):
            return executor
        }
    }
}
