import Dispatch
import Foundation

/// The binding of an action type to a feature, created by ``Feature/action(_:name:)`` and
/// stored in a static property of the feature; it is what you perform.
public struct ActionBinding<F: Feature, A: Action>: Sendable, CustomStringConvertible {
    /// The action's name within its feature, e.g. `say`.
    public let actionName: String
    /// The feature, when it is a ``ConditionalFeature`` (looked up once, not per perform).
    @usableFromInline let conditionalFeature: (any ConditionalFeature.Type)?

    /// The stable full name `Feature.action`, e.g. `Echo.say`: made once, not per perform (a
    /// perform names its action in its event and, by name, in its outcome's encoding).
    public let fullName: String

    init(actionName: String) {
        self.actionName = actionName
        self.conditionalFeature = F.self as? any ConditionalFeature.Type
        self.fullName = "\(F.name).\(actionName)"
    }

    /// The binding if its feature is available now, `nil` if not: Flint's `request()`. A
    /// feature that is not a ``ConditionalFeature`` is always available.
    ///
    /// Availability is checked again when the action is about to run, so a feature switched
    /// off in between fails the perform with ``ActionError/Code/featureUnavailable``.
    public func request() -> Self? {
        isAvailable ? self : nil
    }

    /// Whether the action's feature is available now.
    public var isAvailable: Bool {
        conditionalFeature.map { FeatureAvailability.shared.isAvailable($0) } ?? true
    }

    /// The feature's name, e.g. `Echo`.
    public var featureName: String { F.name }

    /// The full name.
    public var description: String { fullName }

    /// This binding with its types erased, as found in an ``ActionCatalog``.
    ///
    /// Inlinable, so that the perform it wraps is specialised for the action's types in the
    /// module that declares the action (unspecialised, generic metadata lookups and dynamic
    /// calls cost a worker about a sixth of its CPU).
    @inlinable
    public var erased: AnyActionBinding {
        AnyActionBinding(
            featureName: featureName,
            actionName: actionName,
            actionDescription: A.description,
            performJSON: { session, jsonInput, deadline, target, earlyTarget, cancellation, completion in
                session.performJSON(self, jsonInput: jsonInput, deadline: deadline, target: target, earlyTarget: earlyTarget,
                                    cancellation: cancellation, completion: completion)
            },
            schemas: { (ActionSchema.of(A.Input.self), ActionSchema.of(A.Output.self)) }
        )
    }

    /// `SayAction` → `say`.
    static func derivedActionName(of type: A.Type) -> String {
        var name = String(describing: type)
        if name.hasSuffix("Action"), name.count > "Action".count {
            name.removeLast("Action".count)
        }
        return name.prefix(1).lowercased() + name.dropFirst()
    }
}
