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

    /// The report as aligned columns: feature, switch, workers, actions; then switches of
    /// features no worker serves.
    static func table(_ report: FleetFeaturesReport) -> String {
        var rows = [["FEATURE", "SWITCH", "WORKERS", "ACTIONS"]]
        for feature in report.features {
            rows.append([feature.name, feature.switched ?? "-", String(feature.workers), feature.actions.joined(separator: " ")])
        }
        let served = Set(report.features.map(\.name))
        for (name, state) in report.switches.sorted(by: { $0.key < $1.key }) where !served.contains(name) {
            rows.append([name, state, "0", "(no worker serves it)"])
        }
        return TableText.render(rows)
    }
}
