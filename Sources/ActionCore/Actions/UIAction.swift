/// An action that belongs on the main queue, as Flint's `UIAction`: it runs on the
/// ``MainDirectExecutor`` (inline when performed from the main thread or queue) and its
/// ``Action/defaultSession`` is ``ActionSession/main``.
///
/// ActionBus has no UI of its own; the protocol is for apps that host an ``ActionSession`` and
/// keep Flint's convention for the actions that touch their interface.
public protocol UIAction: Action {}

extension UIAction {
    /// The main queue, inline when already there.
    public static var executor: ActionExecutorSelection { .executor(MainDirectExecutor()) }

    /// ``ActionSession/main``.
    public static var defaultSession: ActionSession { .main }
}
