/// Collects the actions a feature declares in ``Feature/prepare(actions:)``.
public struct FeatureActions: Sendable {
    /// The declared actions, in declaration order.
    public private(set) var declared: [AnyActionBinding] = []

    init() {}

    /// Declares `binding` as one of the feature's actions.
    public mutating func declare<F: Feature, A: Action>(_ binding: ActionBinding<F, A>) {
        declared.append(binding.erased)
    }

    /// Declares `binding` and marks it published: visible to users (a palette, a menu, a catalog
    /// shown to people), as Flint's `actions.publish`.
    public mutating func publish<F: Feature, A: Action>(_ binding: ActionBinding<F, A>) {
        var erased = binding.erased
        erased.isPublished = true
        declared.append(erased)
    }
}
