import Locking

/// Decides whether ``ConditionalFeature``s are available, process-wide: runtime switches kept
/// here, and the user's toggles, purchases and permissions asked of the providers the host
/// installs (an app has a store and a permission system; a worker has neither, and a condition
/// nobody answers for does not hold).
public final class FeatureAvailability: Sendable {
    /// Answers whether a user has a feature turned on (`nil`: no answer, use the default).
    public typealias UserToggles = @Sendable (_ featureName: String) -> Bool?
    /// Answers whether a product is purchased.
    public typealias Purchases = @Sendable (_ productID: String) -> Bool
    /// Answers whether a permission is granted.
    public typealias Permissions = @Sendable (_ permission: String) -> Bool

    /// The one every session consults.
    public static let shared = FeatureAvailability()

    private struct State {
        var switches: [String: Bool] = [:]
        var userToggles: UserToggles?
        var purchases: Purchases?
        var permissions: Permissions?
        /// Conditions by feature name, read once per feature type.
        var conditions: [ObjectIdentifier: [FeatureConditions.Condition]] = [:]
    }

    private let state = Locked(State())

    /// A separate decider (tests; the shared one is what sessions use).
    public init() {}

    /// Switches a ``FeatureConditions/Condition/runtimeEnabled(initially:)`` feature on or off.
    public func setEnabled(_ enabled: Bool, for feature: any ConditionalFeature.Type) {
        setEnabled(enabled, featureNamed: feature.name)
    }

    /// Switches the runtime-enabled feature named `featureName` on or off (for a switch that
    /// arrives by name, from the coordinator).
    public func setEnabled(_ enabled: Bool, featureNamed featureName: String) {
        state.withLock { $0.switches[featureName] = enabled }
    }

    /// Forgets a runtime switch: the feature's `initially` applies again.
    public func resetSwitch(featureNamed featureName: String) {
        state.withLock { $0.switches[featureName] = nil }
    }

    /// Where users' toggles come from.
    public var userToggles: UserToggles? {
        get { state.withLock { $0.userToggles } }
        set { state.withLock { $0.userToggles = newValue } }
    }

    /// Where purchases are checked.
    public var purchases: Purchases? {
        get { state.withLock { $0.purchases } }
        set { state.withLock { $0.purchases = newValue } }
    }

    /// Where permissions are checked.
    public var permissions: Permissions? {
        get { state.withLock { $0.permissions } }
        set { state.withLock { $0.permissions = newValue } }
    }

    /// Whether `feature` is available now: every condition it declares holds.
    public func isAvailable(_ feature: any ConditionalFeature.Type) -> Bool {
        let name = feature.name
        let (conditions, snapshot) = state.withLock { state -> ([FeatureConditions.Condition], State) in
            let key = ObjectIdentifier(feature)
            if let known = state.conditions[key] { return (known, state) }
            var declared = FeatureConditions()
            feature.prepare(conditions: &declared)
            state.conditions[key] = declared.conditions
            return (declared.conditions, state)
        }
        // The providers run outside the lock: they may be slow, or ask this object again.
        return conditions.allSatisfy { condition in
            switch condition {
            case .runtimeEnabled(let initially): snapshot.switches[name] ?? initially
            case .userToggled(let defaultEnabled): snapshot.userToggles?(name) ?? defaultEnabled
            case .purchase(let productID): snapshot.purchases?(productID) ?? false
            case .permission(let permission): snapshot.permissions?(permission) ?? false
            }
        }
    }
}
