/// Cancels one perform started by ``ActionSession/performForwarding(named:jsonInput:deadline:cancellation:forward:)``,
/// as an ``ActionCancellation`` passed to it would, without one being made for every perform.
///
/// A worker keeps one per running request and uses it only when a client cancels: for an
/// action without retries it is the perform itself, so a perform costs no cancellation object
/// and no lock to register one (two allocations a request on a worker's hot path).
public struct ActionCancelHandle: Sendable {
    private let cancelPerform: (@Sendable () -> Void)?

    /// A handle that cancels nothing: the perform ended before it began (an unknown action,
    /// input that does not decode), its outcome already delivered.
    public static let none = ActionCancelHandle(nil)

    @usableFromInline
    init(_ cancelPerform: (@Sendable () -> Void)?) {
        self.cancelPerform = cancelPerform
    }

    /// Ends the perform with ``ActionError/Code/cancelled`` unless it already ended; safe to
    /// call from any thread, any number of times.
    public func cancel() {
        cancelPerform?()
    }
}
