/// Collects the actions a feature declares in ``Feature/prepare(actions:)``.
public struct FeatureActions: Sendable {
    /// The declared actions, in declaration order.
    public private(set) var declared: [AnyActionBinding] = []

    init() {}

    /// Declares `binding` as one of the feature's actions.
    @inlinable
    public mutating func declare<F: Feature, A: Action>(_ binding: ActionBinding<F, A>) {
        append(binding.erased, published: false)
    }

    /// Declares `binding` and marks it published: visible to users (a palette, a menu, a catalog
    /// shown to people), as Flint's `actions.publish`.
    @inlinable
    public mutating func publish<F: Feature, A: Action>(_ binding: ActionBinding<F, A>) {
        append(binding.erased, published: true)
    }

    @usableFromInline
    mutating func append(_ binding: AnyActionBinding, published: Bool) {
        var binding = binding
        binding.isPublished = published
        declared.append(binding)
    }
}
