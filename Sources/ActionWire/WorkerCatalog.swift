/// What a worker serves, described for people: its features (name, description, parent,
/// whether conditional) and its actions (description, whether published, the JSON Schema of
/// the input and the output). A worker sends it in CATALOG after each WELCOME; `actionbus features`
/// and the dashboard show it.
public struct WorkerCatalog: Sendable, Hashable, Codable {
    /// A feature or feature group.
    public struct Feature: Sendable, Hashable, Codable {
        public var name: String
        public var description: String
        public var parent: String?
        public var conditional: Bool

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
        public var description: String
        /// Whether its feature published it (Flint's published actions, shown to users).
        public var published: Bool
        /// JSON Schema of its input and output, as the worker worked them out.
        public var input: JSONValue
        public var output: JSONValue

        public init(name: String, description: String, published: Bool, input: JSONValue, output: JSONValue) {
            self.name = name
            self.description = description
            self.published = published
            self.input = input
            self.output = output
        }
    }

    public var features: [Feature]
    public var actions: [Action]

    public init(features: [Feature], actions: [Action]) {
        self.features = features
        self.actions = actions
    }
}
