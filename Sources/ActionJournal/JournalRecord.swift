import ActionWire
import Foundation

/// One entry of the coordinator's journal.
public enum JournalRecord: Sendable, Hashable {
    /// The coordinator accepted a request; `deadline` is wall-clock time, so it survives a restart.
    case accepted(WireRequest, deadline: Date)
    /// The coordinator answered an accepted request with this outcome.
    case finished(WireOutcome)
    /// A worker died holding the request (it counts toward `maxDeliveries` after a restart too).
    case workerDied(requestID: String)
    /// The fleet-wide feature switches after an operator changed them: the whole set (the last
    /// such record is the one that holds).
    case featureSwitches([String: FeatureSwitch])
}
