import ActionBusTestSupport
import Testing

/// The test support's seeded inputs: one seed replays them, and a failing seeded test says
/// which seed it ran with.
@Suite("Seeded random inputs")
struct SeededRandomTests {
    @Test func oneSeedGivesOneSequenceAndAnotherSeedAnother() {
        var first = SeededRandom(seed: 42), again = SeededRandom(seed: 42), other = SeededRandom(seed: 43)
        let sequence = (0..<8).map { _ in first.next() }
        #expect((0..<8).map { _ in again.next() } == sequence)
        #expect((0..<8).map { _ in other.next() } != sequence)
        var parent = SeededRandom(seed: 42)
        var split = parent.split()
        #expect(split.next() != sequence[0], "a split stream is not the parent's")
    }

    @Test(.seeded) func aSeededTestsIssuesSayItsSeed() {
        let generator = SeededRandom()
        withKnownIssue {
            Issue.record("a failure")
        } matching: { issue in
            issue.comments.contains { $0.rawValue == "seed \(generator.seed); replay with ACTIONBUS_TEST_SEED=\(generator.seed)" }
        }
        #expect(SeededRandom().seed == generator.seed, "one seed for the whole test")
    }
}
