/// A feature that is not always available (Flint's `ConditionalFeature`): switched on and off
/// at runtime, bought, permitted, or chosen by the user.
///
/// Its actions are performed like any other; while the feature is unavailable a perform fails
/// with ``ActionError/Code/featureUnavailable`` without running the action, whether it was typed
/// or by name (a worker's). `binding.request()` asks first, as in Flint.
///
/// ```swift
/// enum BetaFeature: ConditionalFeature {
///     static let description = "Something new"
///     static let try = action(TryAction.self)
///     static func prepare(conditions: inout FeatureConditions) {
///         conditions.runtimeEnabled(initially: false)
///     }
///     static func prepare(actions: inout FeatureActions) { actions.declare(try) }
/// }
/// FeatureAvailability.shared.setEnabled(true, for: BetaFeature.self)
/// ```
public protocol ConditionalFeature: Feature {
    /// Declares what the feature's availability depends on; every condition must hold.
    static func prepare(conditions: inout FeatureConditions)
}

extension ConditionalFeature {
    /// Whether the feature is available now, by ``FeatureAvailability/shared``.
    public static var isAvailable: Bool { FeatureAvailability.shared.isAvailable(self) }
}
