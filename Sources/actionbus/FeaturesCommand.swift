import ActionClient
import ActionWire
import ArgumentParser
import Foundation

/// `actionbus features`: the features the fleet serves, and fleet-wide switches.
struct FeaturesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "features",
        abstract: "Print the features the coordinator's workers serve; switch features on or off across the fleet.",
        discussion: """
            A feature switched off fails its actions with featureUnavailable on every worker, now and as workers \
            join, until it is switched on or cleared; --enable also turns on a conditional feature whose runtime \
            switch is off by default. Switches are journaled: they survive a coordinator restart with its journal.
            """
    )

    @Option(name: .customLong("disable"), help: ArgumentHelp("Switch this feature off on every worker (repeatable).", valueName: "feature"))
    var disabled: [String] = []
    @Option(name: .customLong("enable"), help: ArgumentHelp("Switch this feature on on every worker (repeatable).", valueName: "feature"))
    var enabled: [String] = []
    @Option(name: .customLong("clear"), help: ArgumentHelp("Remove this feature's fleet-wide switch (repeatable).", valueName: "feature"))
    var cleared: [String] = []
    @Flag(help: "Print the JSON report.")
    var json = false
    @OptionGroup var client: QueryClientOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        let named = disabled + enabled + cleared
        if let twice = Dictionary(grouping: named, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw ValidationError("feature \(twice) is named more than once; give each feature one switch")
        }
    }

    func run() async throws {
        var changes: [String: FeatureSwitch] = [:]
        for feature in disabled { changes[feature] = .off }
        for feature in enabled { changes[feature] = .on }
        for feature in cleared { changes[feature] = .cleared }
        try await client.run(label: "actionbus.features", logging: logging) { client in
            let report = try await client.features(switching: changes)
            if json { try printJSON(report) } else { print(Self.table(report), terminator: "") }
        }
    }

    /// The report as aligned columns: feature, switch, workers, description; then each action
    /// with its input and output shapes; then switches of features no worker serves.
    static func table(_ report: FleetFeaturesReport) -> String {
        var rows = [["FEATURE", "SWITCH", "WORKERS", "DESCRIPTION"]]
        for feature in report.features {
            let kind = feature.conditional == true ? " (conditional)" : ""
            rows.append([feature.name, feature.switched ?? "-", String(feature.workers), (feature.description ?? "") + kind])
        }
        let served = Set(report.features.map(\.name))
        for (name, state) in report.switches.sorted(by: { $0.key < $1.key }) where !served.contains(name) {
            rows.append([name, state, "0", "(no worker serves it)"])
        }
        var text = TableText.render(rows)
        var actionRows = [["ACTION", "INPUT", "OUTPUT", "DESCRIPTION"]]
        for feature in report.features {
            let described = Dictionary((feature.details ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for action in feature.actions {
                let detail = described[action]
                actionRows.append([action, detail.map { shape($0.input) } ?? "?", detail.map { shape($0.output) } ?? "?", detail?.description ?? ""])
            }
        }
        if actionRows.count > 1 { text += "\n" + TableText.render(actionRows) }
        return text
    }

    /// A JSON Schema in one short line: `{text: string, n?: integer}`, `[string]`.
    static func shape(_ schema: JSONValue) -> String {
        guard case .object(let fields) = schema, case .string(let type)? = fields["type"] else { return "any" }
        switch type {
        case "object":
            guard case .object(let properties)? = fields["properties"] else { return "{}" }
            var required: Set<String> = []
            if case .array(let names)? = fields["required"] {
                for case .string(let name) in names { required.insert(name) }
            }
            let members = properties.keys.sorted().map { key in
                "\(key)\(required.contains(key) ? "" : "?"): \(shape(properties[key]!))"
            }
            return "{" + members.joined(separator: ", ") + "}"
        case "array":
            return "[" + (fields["items"].map(shape) ?? "any") + "]"
        default:
            return type
        }
    }
}
