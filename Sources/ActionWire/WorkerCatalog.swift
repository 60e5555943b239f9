/// What a worker serves, described for people: its features (name, description, parent,
/// whether conditional) and its actions (description, whether published, the JSON Schema of
/// the input and the output). A worker sends it in CATALOG after each WELCOME; `actionbus features`
/// and the dashboard show it.
public struct WorkerCatalog: Sendable, Hashable, Codable {
    /// A feature or feature group.
    public struct Feature: Sendable, Hashable, Codable {
        /// Its name (`Documents`).
        public var name: String
        /// What it is for, as the feature describes itself.
        public var description: String
        /// The group it belongs to; `nil` at the top.
        public var parent: String?
        /// Whether it is a conditional feature (Flint's), available only while switched on.
        public var conditional: Bool

        /// Describes a feature.
        public init(name: String, description: String, parent: String?, conditional: Bool) {
            self.name = name
            self.description = description
            self.parent = parent
            self.conditional = conditional
        }
    }

    /// An action.
    public struct Action: Sendable, Hashable, Codable {
        /// `Feature.action`.
        public var name: String
        /// What it does, as the action describes itself.
        public var description: String
        /// Whether its feature published it (Flint's published actions, shown to users).
        public var published: Bool
        /// JSON Schema of its input and output, as the worker worked them out.
        public var input: JSONValue
        /// JSON Schema of its output.
        public var output: JSONValue

        /// Describes an action.
        public init(name: String, description: String, published: Bool, input: JSONValue, output: JSONValue) {
            self.name = name
            self.description = description
            self.published = published
            self.input = input
            self.output = output
        }
    }

    /// Its features and groups, in declaration order.
    public var features: [Feature]
    /// Its actions, in declaration order.
    public var actions: [Action]

    /// A catalog of these features and actions.
    public init(features: [Feature], actions: [Action]) {
        self.features = features
        self.actions = actions
    }
}
