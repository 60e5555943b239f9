/// What recording one perform did to the action stacks.
public struct ActionStackUpdate: Sendable, Hashable {
    /// The stack the perform was recorded in.
    public let stackID: ActionStackID
    /// Whether that stack was opened by this record.
    public let openedStack: Bool
    /// The stack the new stack became a sub-stack of, when one was opened inside another.
    public let parentStackID: ActionStackID?
    /// The stack closed by this record, with the sub-stacks closed along with it nested inside.
    public let closedStack: ActionStackSnapshot?
}
