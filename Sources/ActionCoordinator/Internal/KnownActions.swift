import Foundation

/// The actions the fleet serves, or has served recently: what a request may wait for.
///
/// A request for a *known* action waits for a worker within its deadline however long none is
/// registered (a worker restarting, a fleet scaling up from zero); one for an action the fleet
/// has never served, or has forgotten, fails fast (`noWorker`, with a suggestion). An action is
/// forgotten `forgetAfter` after the last worker serving it left. The set is journaled (each
/// change, and in every compaction), so a restarted coordinator knows what its workers served.
///
/// Times are wall-clock: an expiry counts across restarts. It is not thread-safe: the
/// coordinator's core owns it.
final class KnownActions {
    /// How long an action stays known with no worker serving it; `nil`: forever.
    let forgetAfter: Duration?
    /// The most actions kept: past it, those unserved longest are forgotten first.
    static let capacity = 10_000
    /// Each known action, and since when no registered worker serves it (`nil`: one does).
    @exclusivity(unchecked) private(set) var actions: [String: Date?] = [:]

    init(forgetAfter: Duration?) {
        self.forgetAfter = forgetAfter
    }

    /// Whether a request for `action` may wait for a worker.
    func isKnown(_ action: String) -> Bool { actions[action] != nil }

    /// Since when no worker serves `action`, if it is known and unserved.
    func unservedSince(_ action: String) -> Date? { actions[action] ?? nil }

    /// A registered worker serves `served`. Returns whether the set changed (to be journaled).
    func served(_ served: some Sequence<String>) -> Bool {
        var changed = false
        for action in served where actions[action] != .some(nil) {
            actions[action] = .some(nil)
            changed = true
        }
        if changed { trim() }
        return changed
    }

    /// No registered worker serves `unserved` any more, from `date`. Returns whether the set changed.
    func unserved(_ unserved: some Sequence<String>, at date: Date) -> Bool {
        var changed = false
        for action in unserved where actions[action] == .some(nil) {
            actions[action] = date
            changed = true
        }
        return changed
    }

    /// Forgets the actions unserved for longer than ``forgetAfter`` at `now`; returns them.
    func forgetExpired(now: Date) -> [String] {
        guard let forgetAfter else { return [] }
        let limit = now.addingTimeInterval(-forgetAfter.timeInterval)
        let expired = actions.compactMap { action, since in since.flatMap { $0 < limit ? action : nil } }
        for action in expired { actions[action] = nil }
        return expired.sorted()
    }

    /// Takes back the set a journal held. Actions served when it was written are unserved from
    /// `restartedAt` (no worker is registered yet): their expiry counts from the restart.
    func restore(_ journaled: [String: Date?], restartedAt: Date) {
        actions = journaled.mapValues { $0 ?? restartedAt }
        trim()
    }

    /// Keeps at most ``capacity`` actions, forgetting those unserved longest first.
    private func trim() {
        guard actions.count > Self.capacity else { return }
        let unserved = actions.compactMap { action, since in since.map { (action, $0) } }.sorted { $0.1 < $1.1 }
        for (action, _) in unserved.prefix(actions.count - Self.capacity) { actions[action] = nil }
    }
}
