import ActionBusTestSupport
import Testing

/// Random schedules of three members' campaigns against a simulated etcd (see
/// ``ElectionSimulation``): never serving after the lease may have expired, never two leaders,
/// epochs that only grow; and, with all the faults, leaders all the same.
@Suite struct ElectionSimulationTests {
    @Test(.seeded) func neverServesAfterItsLeaseMayHaveExpired() {
        var random = SeededRandom()
        var leaderships = 0
        for round in 0..<40 {
            var simulation = ElectionSimulation(members: 3, random: random.split())
            simulation.run(for: .seconds(120))
            guard simulation.violations.isEmpty else {
                Issue.record("round \(round): \(simulation.violations)")
                return
            }
            leaderships += simulation.leaderships
        }
        // Loss, pauses and stalls make leaders change; the election still makes them.
        #expect(leaderships >= 40, "only \(leaderships) leaderships in 40 rounds")
    }
}
