/// One feature or group of an ``ActionCatalog``'s feature graph: enough to draw the tree (Flint's
/// feature browser) and say what each node offers.
public struct CatalogFeature: Sendable, Hashable, Codable {
    /// The feature's name.
    public let name: String
    /// Its description.
    public let description: String
    /// The group it belongs to; `nil` for a root.
    public let parent: String?
    /// Whether it is a ``FeatureGroup``.
    public let isGroup: Bool
    /// Whether it is a ``ConditionalFeature``.
    public let isConditional: Bool
    /// The full names of the actions it declares, in declaration order.
    public let actionNames: [String]
}
