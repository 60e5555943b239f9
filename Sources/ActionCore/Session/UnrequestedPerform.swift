/// A perform that a hosted session ran without its host asking for it: an action performed
/// another action in its session (Flint's nested perform). A worker reports these so that the
/// coordinator's action stacks hold every action its sessions ran, not only the requested ones.
package struct UnrequestedPerform: Sendable {
    /// The perform as the session's own stacks recorded it.
    package let record: ActionStackRecord
    /// The failure's message; `nil` for a success.
    package let errorMessage: String?
}

/// Receives a hosted session's ``UnrequestedPerform``s, on the thread that ended each.
package typealias UnrequestedPerformReporter = @Sendable (UnrequestedPerform) -> Void
