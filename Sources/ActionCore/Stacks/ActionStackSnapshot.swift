import struct Foundation.Date

/// A copy of one action stack: its entries and its open sub-stacks, encodable as JSON.
public struct ActionStackSnapshot: Sendable, Hashable, Codable {
    /// One entry of a stack: a performed action, or the opening of a sub-stack.
    public struct Entry: Sendable, Hashable, Codable {
        /// What the entry records.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// An action was performed.
            case action
            /// A stack of another feature was opened as a sub-stack of this one.
            case subStack
        }

        /// What the entry records.
        public var kind: Kind
        /// The action's full name, for an `action` entry.
        public var actionName: String?
        /// The action's outcome, for an `action` entry.
        public var outcome: ActionOutcomeSummary?
        /// The sub-stack's id, for a `subStack` entry.
        public var subStackID: ActionStackID?
        /// The sub-stack's feature, for a `subStack` entry.
        public var subStackFeatureName: String?
        /// When the entry was added.
        public var date: Date

        /// An `action` entry.
        public static func action(_ name: String, outcome: ActionOutcomeSummary, date: Date) -> Self {
            Self(kind: .action, actionName: name, outcome: outcome, date: date)
        }

        /// A `subStack` entry.
        public static func subStack(_ id: ActionStackID, featureName: String, date: Date) -> Self {
            Self(kind: .subStack, subStackID: id, subStackFeatureName: featureName, date: date)
        }
    }

    /// The stack's id.
    public var id: ActionStackID
    /// The session the stack belongs to.
    public var sessionName: String
    /// The feature the stack belongs to.
    public var featureName: String
    /// The stack this one is a sub-stack of, if any.
    public var parentID: ActionStackID?
    /// Whether the action that opened the stack was user initiated.
    public var userInitiated: Bool
    /// When the stack was opened.
    public var openedAt: Date
    /// The most recent entries, oldest first (at most the tracker's `maximumEntries`).
    public var entries: [Entry]
    /// How many older entries were dropped to respect the cap.
    public var droppedEntryCount: Int
    /// The sub-stacks that were open with this stack, oldest first.
    public var subStacks: [ActionStackSnapshot]

    /// The full names of the actions in ``entries``, oldest first.
    public var actionNames: [String] {
        entries.compactMap(\.actionName)
    }
}
