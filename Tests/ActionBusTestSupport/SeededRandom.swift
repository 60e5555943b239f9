/// A small, fast random number generator (SplitMix64) that one seed replays exactly.
///
/// A test that uses random inputs makes one from its ``TestSeed`` (the `.seeded` trait prints the
/// seed with every issue the test records); `ACTIONBUS_TEST_SEED=<seed>` replays a failure.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    /// The seed it started from.
    package let seed: UInt64
    private var state: UInt64

    /// A generator for `seed`.
    package init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// A generator for the running test's seed (see ``TestSeed/current``).
    package init() {
        self.init(seed: TestSeed.current)
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Another generator, seeded from this one: for a second stream (another thread's) that
    /// the same test seed still replays.
    package mutating func split() -> SeededRandom {
        SeededRandom(seed: next())
    }
}
