/// Runs work synchronously on the caller's thread.
///
/// It is always "current", so completion delivered through it happens on whatever thread the
/// action completes on.
public struct DirectExecutor: ActionExecutor {
    /// Creates a direct executor.
    public init() {}

    /// `"direct"`.
    public var name: String? { "direct" }

    /// Always `true`: the caller's thread is this executor.
    public var isCurrent: Bool { true }

    /// Runs `work` immediately.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        work()
    }
}
