/// Every action of a feature tree, found by full name (`Echo.say`) or listed in declaration order.
public struct ActionCatalog: Sendable {
    /// Every action, in declaration order (depth first through the feature tree).
    public let actions: [AnyActionBinding]
    /// Every feature and group name, in declaration order.
    public let featureNames: [String]
    /// The feature graph: every feature and group, in declaration order, each with its parent.
    public let features: [CatalogFeature]
    private let actionsByName: [String: AnyActionBinding]

    /// An empty catalog.
    public init() {
        self.init(features: [])
    }

    /// The catalog of `root` and all its sub-features.
    public init(root: any Feature.Type) {
        self.init(features: [root])
    }

    /// The catalog of `features` and all their sub-features.
    ///
    /// Two actions with the same full name are a programming error and stop the process.
    public init(features: [any Feature.Type]) {
        var actions: [AnyActionBinding] = []
        var nodes: [CatalogFeature] = []
        func collect(_ feature: any Feature.Type, parent: String?) {
            let declared = feature.declaredActions
            let group = feature as? any FeatureGroup.Type
            nodes.append(CatalogFeature(
                name: feature.name, description: feature.description, parent: parent,
                isGroup: group != nil, isConditional: feature is any ConditionalFeature.Type,
                actionNames: declared.map(\.fullName)
            ))
            actions.append(contentsOf: declared)
            group?.subfeatures.forEach { collect($0, parent: feature.name) }
        }
        for feature in features { collect(feature, parent: nil) }
        let featureNames = nodes.map(\.name)

        var byName: [String: AnyActionBinding] = [:]
        for action in actions {
            precondition(byName[action.fullName] == nil, "Action \(action.fullName) is declared twice")
            byName[action.fullName] = action
        }
        self.actions = actions
        self.featureNames = featureNames
        self.features = nodes
        self.actionsByName = byName
    }

    /// The action with full name `fullName`, e.g. `Echo.say`.
    public func action(named fullName: String) -> AnyActionBinding? {
        actionsByName[fullName]
    }

    /// The full names of every action, in declaration order.
    public var actionNames: [String] {
        actions.map(\.fullName)
    }

    /// The actions features published (``FeatureActions/publish(_:)``), in declaration order.
    public var publishedActions: [AnyActionBinding] {
        actions.filter(\.isPublished)
    }

    /// The features whose parent is `name` (`nil`: the roots), in declaration order.
    public func subfeatures(of name: String?) -> [CatalogFeature] {
        features.filter { $0.parent == name }
    }
}
