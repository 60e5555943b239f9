import Dispatch
import Foundation

/// An action binding with its types erased: names, description, and a perform that takes and
/// returns JSON. This is what an ``ActionCatalog`` lists and a distributed worker performs.
public struct AnyActionBinding: Sendable, CustomStringConvertible {
    /// The feature's name, e.g. `Echo`.
    public let featureName: String
    /// The action's name within its feature, e.g. `say`.
    public let actionName: String
    /// The action's description.
    public let actionDescription: String
    /// Whether the feature published it (``FeatureActions/publish(_:)``): shown to users, as in
    /// Flint, where declared-only actions are internal.
    public internal(set) var isPublished = false

    @usableFromInline
    typealias JSONPerformer = @Sendable (
        ActionSession, ArraySlice<UInt8>, ContinuousClock.Instant?, CompletionTarget?, CompletionTarget, ActionCancellation?,
        @escaping @Sendable (JSONBytesOutcome) -> Void
    ) -> ActionCancelHandle
    @usableFromInline let performJSON: JSONPerformer
    /// The shapes of its input and output, worked out when asked (``ActionSchema/of(_:)``).
    let schemas: @Sendable () -> (input: ActionSchema, output: ActionSchema)

    @usableFromInline
    init(
        featureName: String, actionName: String, actionDescription: String, performJSON: @escaping JSONPerformer,
        schemas: @escaping @Sendable () -> (input: ActionSchema, output: ActionSchema)
    ) {
        self.featureName = featureName
        self.actionName = actionName
        self.actionDescription = actionDescription
        self.performJSON = performJSON
        self.schemas = schemas
    }

    /// The shape of its JSON input.
    public var inputSchema: ActionSchema { schemas().input }
    /// The shape of its JSON output.
    public var outputSchema: ActionSchema { schemas().output }

    /// The stable full name `Feature.action`.
    public var fullName: String { "\(featureName).\(actionName)" }

    /// The full name.
    public var description: String { fullName }
}
