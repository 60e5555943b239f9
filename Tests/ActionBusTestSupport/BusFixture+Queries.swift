import Foundation

/// What the coordinator reports about itself, through the commands operators run; their JSON
/// fields are stable, so tests assert on them.
extension BusFixture {
    /// Runs one query command (`stats`, `workers`, `queues`, ...) with `--json` against
    /// `coordinator` (this fixture's clients endpoint by default) and returns its standard
    /// output; throws when it fails.
    package func query(_ command: String, _ arguments: [String] = [], coordinator: String? = nil) throws -> String {
        let process = try start("\(command)-\(UUID().uuidString.prefix(6))",
                                [command, "--json", "--timeout", "5", "--coordinator", coordinator ?? clients] + arguments + queryOptions)
        try expect(process.waitForExit(timeout: .seconds(20)) == 0, "\(command) failed: \(process.stderr)")
        return process.stdout
    }

    /// The coordinator's counters (`actionbus stats --json`), by name.
    package func statistics(coordinator: String? = nil) throws -> [String: Int] {
        try JSONDecoder().decode([String: Int].self, from: Data(query("stats", coordinator: coordinator).utf8))
    }

    /// The registered workers (`actionbus workers --json`).
    package func listedWorkers() throws -> [ListedWorker] {
        try JSONDecoder().decode(ListedWorker.Report.self, from: Data(query("workers").utf8)).workers
    }

    /// The registered worker named `name`, if it is listed.
    package func listedWorker(_ name: String) throws -> ListedWorker? {
        try listedWorkers().first { $0.name == name }
    }
}
