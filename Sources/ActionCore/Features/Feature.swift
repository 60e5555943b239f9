/// A piece of functionality that declares the actions it offers (Flint's `Feature`).
///
/// Features are usually caseless enums holding their action bindings:
///
/// ```swift
/// enum EchoFeature: Feature {
///     static let name = "Echo"
///     static let description = "Repeats what it is told"
///     static let say = action(SayAction.self)          // "Echo.say"
///     static func prepare(actions: inout FeatureActions) {
///         actions.declare(say)
///     }
/// }
/// ```
public protocol Feature: Sendable {
    /// The feature's name, the first half of its actions' full names; defaults to the type name.
    static var name: String { get }
    /// A one-line description for catalogs and logs.
    static var description: String { get }
    /// Declares the feature's actions so an ``ActionCatalog`` can find them by name.
    static func prepare(actions: inout FeatureActions)
}

extension Feature {
    /// The type's name.
    public static var name: String { String(describing: self) }

    /// Declares nothing.
    public static func prepare(actions: inout FeatureActions) {}

    /// Binds `type` to this feature as the action `name`.
    ///
    /// Without a name, the type name minus an `Action` suffix, starting lowercase, is used:
    /// `SayAction` becomes `say`, so the full name is `Echo.say`.
    public static func action<A: Action>(_ type: A.Type, name: String? = nil) -> ActionBinding<Self, A> {
        ActionBinding(actionName: name ?? ActionBinding<Self, A>.derivedActionName(of: type))
    }

    /// The actions this feature declares, in declaration order.
    static var declaredActions: [AnyActionBinding] {
        var actions = FeatureActions()
        prepare(actions: &actions)
        return actions.declared
    }
}
