/// What a ``ConditionalFeature``'s availability depends on (Flint's feature constraints): every
/// condition declared must hold.
public struct FeatureConditions: Sendable {
    /// One condition.
    public enum Condition: Sendable, Hashable {
        /// Switched on and off at runtime (``FeatureAvailability/setEnabled(_:for:)``; the
        /// coordinator switches it fleet-wide), starting as `initially`.
        case runtimeEnabled(initially: Bool)
        /// Turned on or off by the user, as ``FeatureAvailability/userToggles`` says, or
        /// `defaultEnabled` when it has no answer.
        case userToggled(defaultEnabled: Bool)
        /// Bought: ``FeatureAvailability/purchases`` must say the product is purchased.
        case purchase(productID: String)
        /// Permitted: ``FeatureAvailability/permissions`` must grant the permission.
        case permission(String)
    }

    /// The conditions, in declaration order.
    public private(set) var conditions: [Condition] = []

    init() {}

    /// Available only while switched on at runtime.
    public mutating func runtimeEnabled(initially: Bool = true) { conditions.append(.runtimeEnabled(initially: initially)) }

    /// Available only while the user has it turned on.
    public mutating func userToggled(defaultEnabled: Bool) { conditions.append(.userToggled(defaultEnabled: defaultEnabled)) }

    /// Available only once `productID` is purchased.
    public mutating func purchase(_ productID: String) { conditions.append(.purchase(productID: productID)) }

    /// Available only while `permission` is granted.
    public mutating func permission(_ permission: String) { conditions.append(.permission(permission)) }
}
