import Foundation
import Testing

/// The seed of a test's random inputs: `ACTIONBUS_TEST_SEED` when set (to replay a failure),
/// else drawn fresh for each test.
///
/// A test whose inputs are random carries the `.seeded` trait, which picks the seed and adds
/// "seed N; replay with ACTIONBUS_TEST_SEED=N" to every issue the test records, so that any
/// failure can be run again with the very same inputs.
package enum TestSeed {
    /// The environment variable that fixes the seed.
    package static let environmentVariable = "ACTIONBUS_TEST_SEED"

    /// The seed the `.seeded` trait chose for the running test.
    @TaskLocal static var chosen: UInt64?

    /// The running test's seed. Outside a `.seeded` test it records an issue (the seed would
    /// be printed nowhere) and returns a fresh one.
    package static var current: UInt64 {
        if let chosen { return chosen }
        Issue.record("random inputs outside a .seeded test: add the .seeded trait so that a failure prints its seed")
        return pick()
    }

    /// The seed from the environment, or a fresh one.
    static func pick() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment[environmentVariable] {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let seed = UInt64(trimmed) ?? (trimmed.hasPrefix("0x") ? UInt64(trimmed.dropFirst(2), radix: 16) : nil) {
                return seed
            }
            Issue.record("\(environmentVariable)=\(text) is not a decimal or 0x-hexadecimal UInt64; a fresh seed is used")
        }
        var system = SystemRandomNumberGenerator()
        return system.next()
    }

    /// What every issue of a seeded test says about its seed.
    static func replayNote(_ seed: UInt64) -> Comment {
        "seed \(seed); replay with \(environmentVariable)=\(seed)"
    }
}
