import ActionJournal
import Foundation
import Logging

/// The known actions: kept as workers come and go, journaled on every change, forgotten after
/// ``CoordinatorConfiguration/forgetActionsAfter``.
extension CoordinatorCore {
    /// A worker serving `actions` registered.
    func noteServed(_ actions: Set<String>) {
        if knownActions.served(actions) { journalKnownActions() }
    }

    /// A worker serving `actions` left (or registered again without them): those no registered
    /// worker serves now are unserved from now on.
    func noteUnserved(_ actions: Set<String>) {
        let unserved = actions.filter { registry.workersServing($0).isEmpty }
        guard !unserved.isEmpty, knownActions.unserved(unserved, at: wallClock()) else { return }
        journalKnownActions()
    }

    /// Forgets the actions unserved for longer than the configured expiry (the once-a-second sweep).
    func forgetExpiredActions() {
        let forgotten = knownActions.forgetExpired(now: wallClock())
        guard !forgotten.isEmpty else { return }
        counters.actionsForgotten += forgotten.count
        journalKnownActions()
        logger.notice("actions forgotten: no worker served them for the configured time", metadata: [
            "actions": "\(forgotten)", "actions.forgetAfter": "\(configuration.forgetActionsAfter.map { "\($0)" } ?? "never")",
        ])
    }

    /// Journals the known actions, or, while the disk is below its minimum, leaves that until
    /// space returns (``journalDeferredKnownActions()``): the room under the minimum is for the
    /// outcomes of accepted work, and a compaction's snapshot holds the set meanwhile.
    func journalKnownActions() {
        guard !refusesForStorage else {
            knownActionsUnjournaled = true
            return
        }
        knownActionsUnjournaled = false
        outbox.journal(.knownActions(knownActions.actions))
    }

    /// Journals the known actions if a change waited for disk space.
    func journalDeferredKnownActions() {
        if knownActionsUnjournaled { journalKnownActions() }
    }
}

extension CoordinatorCore {
    /// `date` as ISO 8601 in UTC, to the second: how outcomes and reports name a time of day.
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
