import Foundation
import Testing

/// The coordinator under seeded random schedules of clients, workers, faults and time (see
/// ``CoordinatorSimulation``), its invariants checked after every step. A failure names its
/// seed; `ACTIONBUS_SIMULATION_SEED=N` runs that one schedule again, and
/// `ACTIONBUS_SIMULATION_SCHEDULES=N` runs more (the default keeps CI under a minute).
@Suite("Coordinator simulation")
struct CoordinatorSimulationTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test func invariantsHoldUnderSeededRandomSchedules() throws {
        let seeds: [UInt64]
        if let given = Self.environment["ACTIONBUS_SIMULATION_SEED"].flatMap(UInt64.init) {
            seeds = [given]
        } else {
            let count = Self.environment["ACTIONBUS_SIMULATION_SCHEDULES"].flatMap(Int.init) ?? 1000
            let base = Self.environment["ACTIONBUS_SIMULATION_BASE"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
            seeds = (0..<UInt64(count)).map { base &+ $0 }
        }
        let steps = Self.environment["ACTIONBUS_SIMULATION_STEPS"].flatMap(Int.init) ?? 250
        var totals: [String: Int] = [:]
        for seed in seeds {
            let simulation = CoordinatorSimulation(seed: seed)
            do {
                try simulation.run(steps: steps)
            } catch {
                Issue.record("\(error)")
                return
            }
            totals.merge(simulation.counts) { $0 + $1 }
        }
        // The schedules must have met the faults they are for.
        for kind in ["restart", "restart-torn", "worker-crash", "worker-pause", "worker-leave", "compact", "duplicate-result", "cancel"] {
            #expect(seeds.count < 50 || totals[kind, default: 0] > 0, "no schedule had a \(kind)")
        }
    }
}
