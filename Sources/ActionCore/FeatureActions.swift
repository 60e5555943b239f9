/// Collects the actions a feature declares in ``Feature/prepare(actions:)``.
public struct FeatureActions: Sendable {
    /// The declared actions, in declaration order.
    public private(set) var declared: [AnyActionBinding] = []

    init() {}

    /// Declares `binding` as one of the feature's actions.
    public mutating func declare<F: Feature, A: Action>(_ binding: ActionBinding<F, A>) {
        declared.append(binding.erased)
    }
}
