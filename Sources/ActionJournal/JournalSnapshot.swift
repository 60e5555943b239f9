import ActionWire
import Foundation

/// What a compacted journal holds, already written as the journal's records: built by the
/// coordinator's loop without a `WireRequest` per unfinished request (each acceptance written
/// from the bytes the request is held as, `.acceptedPacked`), and written as it is by
/// ``RequestJournal/compact(_:)-(JournalSnapshot)``.
///
/// A million queued requests make one buffer of about a hundred megabytes; freed once written,
/// it goes back to the system whole, where a million small records would leave the heap
/// fragmented.
package struct JournalSnapshot: Sendable {
    /// The file: its header, then the records back to back.
    package private(set) var bytes: [UInt8]

    /// An empty journal: the header alone.
    package init() { bytes = RequestJournal.header }

    /// Appends `record`.
    package mutating func append(_ record: JournalRecord) {
        record.append(to: &bytes)
    }
}
