import ActionJournal
import Foundation

extension PendingRequest {
    /// The journal's record of its acceptance, due at `deadline` (wall-clock time): its bytes as
    /// it holds them, with the timeout it came with, so the record is the one `.accepted` of
    /// the request as it came would write.
    func acceptance(deadline: Date) -> JournalRecord {
        .acceptedPacked(packed(timeoutMilliseconds: timeoutMilliseconds), deadline: deadline)
    }
}
