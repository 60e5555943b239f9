import Dispatch
import Foundation

/// The binding of an action type to a feature, created by ``Feature/action(_:name:)`` and
/// stored in a static property of the feature; it is what you perform.
public struct ActionBinding<F: Feature, A: Action>: Sendable, CustomStringConvertible {
    /// The action's name within its feature, e.g. `say`.
    public let actionName: String

    init(actionName: String) {
        self.actionName = actionName
    }

    /// The feature's name, e.g. `Echo`.
    public var featureName: String { F.name }

    /// The stable full name `Feature.action`, e.g. `Echo.say`.
    public var fullName: String { "\(F.name).\(actionName)" }

    /// The full name.
    public var description: String { fullName }

    /// This binding with its types erased, as found in an ``ActionCatalog``.
    public var erased: AnyActionBinding {
        AnyActionBinding(
            featureName: featureName,
            actionName: actionName,
            actionDescription: A.description,
            performJSON: { session, jsonInput, deadline, target, earlyTarget, cancellation, completion in
                session.performJSON(self, jsonInput: jsonInput, deadline: deadline, target: target, earlyTarget: earlyTarget,
                                    cancellation: cancellation, completion: completion)
            }
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
