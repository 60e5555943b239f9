/// Every action of a feature tree, found by full name (`Echo.say`) or listed in declaration order.
public struct ActionCatalog: Sendable {
    /// Every action, in declaration order (depth first through the feature tree).
    public let actions: [AnyActionBinding]
    /// Every feature and group name, in declaration order.
    public let featureNames: [String]
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
        var featureNames: [String] = []
        func collect(_ feature: any Feature.Type) {
            featureNames.append(feature.name)
            actions.append(contentsOf: feature.declaredActions)
            if let group = feature as? any FeatureGroup.Type {
                group.subfeatures.forEach(collect)
            }
        }
        features.forEach(collect)

        var byName: [String: AnyActionBinding] = [:]
        for action in actions {
            precondition(byName[action.fullName] == nil, "Action \(action.fullName) is declared twice")
            byName[action.fullName] = action
        }
        self.actions = actions
        self.featureNames = featureNames
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
}
