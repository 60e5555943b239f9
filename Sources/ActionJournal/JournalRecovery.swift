import ActionWire
import Foundation

/// What a journal held when it was opened: the work to resume and the answers to keep.
package struct JournalRecovery: Sendable {
    /// Accepted requests with no outcome yet, in acceptance order.
    package var unfinished: [RecoveredRequest] = []
    /// Outcomes of finished requests, oldest first (for retries and the action stacks).
    package var finished: [WireOutcome] = []
    /// The outcome stream's history: what it published, in position order, each position once.
    package var published: [PublishedOutcome] = []
    /// The stream's last position: positions go on after it.
    package var streamHead: UInt64 = 0
    /// The fleet-wide feature switches last journaled (none: no switch was ever set).
    package var featureSwitches: [String: FeatureSwitch] = [:]
    /// The known actions last journaled, each with since when it is unserved (`nil`: it was
    /// served when journaled).
    package var knownActions: [String: Date?] = [:]
    /// The registered workers' names last journaled (`nil`: the journal never named them).
    package var workers: [String]?
    /// Records read.
    package var records = 0
    /// Whole records whose fields do not decode (names the wire rules reject, written by a
    /// coordinator that let them through), skipped: what they said is lost, the rest is read.
    package var skippedRecords = 0
    /// Bytes at the end that were not a whole record (a write torn by a crash) and were cut off.
    package var discardedBytes = 0

    /// Nothing recovered (a new journal); fill in the fields to describe one by hand.
    package init() {}
}
