/// What FEATURES-REPLY carries: the features a coordinator's registered workers serve and the fleet-wide
/// switches, as a JSON object (`actionbus features` prints it).
public struct FleetFeaturesReport: Codable, Sendable, Equatable {
    /// One feature some registered worker serves.
    public struct Feature: Codable, Sendable, Equatable {
        /// The feature's name, e.g. `Echo`.
        public var name: String
        /// Its actions' full names, sorted.
        public var actions: [String]
        /// How many registered workers serve at least one of its actions.
        public var workers: Int
        /// `"on"` or `"off"` when the fleet switched it, `nil` when each worker's default holds.
        public var switched: String?
        /// What the workers' catalogs say of it: its description, parent, whether conditional.
        public var description: String?
        /// The group it belongs to, as the catalogs say; `nil` at the top.
        public var parent: String?
        /// Whether the catalogs call it conditional (available only while switched on).
        public var conditional: Bool?
        /// Its actions as the catalogs describe them (description, schemas), by name.
        public var details: [WorkerCatalog.Action]?

        /// Creates a feature's entry.
        public init(name: String, actions: [String], workers: Int, switched: String?) {
            self.name = name
            self.actions = actions
            self.workers = workers
            self.switched = switched
        }
    }

    /// The served features, by name.
    public var features: [Feature]
    /// Every fleet-wide switch, `"on"` or `"off"` by feature name, served now or not.
    public var switches: [String: String]
    /// Features left out so the report fits in one message (the first ones by name are kept).
    public var omittedFeatures: Int?

    /// Creates a report.
    public init(features: [Feature], switches: [String: String]) {
        self.features = features
        self.switches = switches
    }
}
