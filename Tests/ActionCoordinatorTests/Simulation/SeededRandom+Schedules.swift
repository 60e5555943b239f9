import ActionBusTestSupport

/// The simulation's draws from its seeded generator.
extension SeededRandom {
    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// A whole number in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    /// One of `elements` (which must not be empty).
    mutating func pick<T>(_ elements: [T]) -> T { elements[Int.random(in: 0..<elements.count, using: &self)] }
}
