import ActionWire

/// An outcome the outcome stream published: its position, and when (milliseconds since 1970).
package struct PublishedOutcome: Sendable, Hashable {
    package var position: UInt64
    package var publishedAt: UInt64
    package var outcome: WireOutcome

    package init(position: UInt64, publishedAt: UInt64, outcome: WireOutcome) {
        self.position = position
        self.publishedAt = publishedAt
        self.outcome = outcome
    }
}
