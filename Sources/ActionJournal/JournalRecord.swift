import ActionWire
import Foundation

/// One entry of the coordinator's journal.
package enum JournalRecord: Sendable, Hashable {
    /// The coordinator accepted a request; `deadline` is wall-clock time, so it survives a restart.
    case accepted(WireRequest, deadline: Date)
    /// The same record as `.accepted` of the request `PackedRequest` packs, written from its
    /// packed bytes as they are: how the coordinator journals an acceptance, from the bytes it
    /// holds the request as (no `WireRequest` made of them, no field packed again on the
    /// journal's thread). Reading the journal gives `.accepted`.
    case acceptedPacked(PackedRequest, deadline: Date)
    /// The coordinator answered an accepted request with this outcome (written so by
    /// compactions, for the outcomes kept for retries; as it happens, `.published`).
    case finished(WireOutcome)
    /// The outcome stream published `outcome` at `position`, at `publishedAt` (milliseconds
    /// since 1970, for the retention window). With `finishesRequest` it is also a request's
    /// answer, as `.finished` says; without, it is history only (a worker's nested perform,
    /// or an outcome a compaction carried over into the retention window).
    case published(WireOutcome, position: UInt64, publishedAt: UInt64, finishesRequest: Bool)
    /// The stream's last position when a compaction wrote the journal, so positions go on
    /// from it even when no outcome is kept.
    case streamHead(UInt64)
    /// A worker died holding the request (it counts toward `maxDeliveries` after a restart too).
    case workerDied(requestID: String)
    /// The fleet-wide feature switches after an operator changed them: the whole set (the last
    /// such record is the one that holds).
    case featureSwitches([String: FeatureSwitch])
    /// The actions the fleet serves or served, after the set changed: the whole set (the last
    /// such record is the one that holds), each with since when no worker serves it (`nil`:
    /// a worker served it when this was written).
    case knownActions([String: Date?])
    /// The names of the registered workers, after the set changed: the whole set (the last
    /// such record is the one that holds). A coordinator that takes requests back from the
    /// journal waits for these workers to say what they still run.
    case workers([String])

    /// The outcome a record answers its request with (`.finished`, or `.published` that
    /// finishes a request); `nil` for any other record.
    package var finishedOutcome: WireOutcome? {
        switch self {
        case .finished(let outcome): outcome
        case .published(let outcome, _, _, let finishesRequest): finishesRequest ? outcome : nil
        default: nil
        }
    }

    /// The accepted request and its deadline, of either form of an acceptance; `nil` for any
    /// other record (or a packed one whose bytes do not decode, which the coordinator never makes).
    package var acceptance: (request: WireRequest, deadline: Date)? {
        switch self {
        case .accepted(let request, let deadline): (request, deadline)
        case .acceptedPacked(let packed, let deadline): packed.request.map { ($0, deadline) }
        case .finished, .published, .streamHead, .workerDied, .featureSwitches, .knownActions, .workers: nil
        }
    }
}
