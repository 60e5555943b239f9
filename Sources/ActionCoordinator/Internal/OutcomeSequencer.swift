import ActionWire

/// Numbers published outcomes per filter scope, so every subscriber can detect gaps.
struct OutcomeSequencer {
    /// A counter's identity: the scope and the names that narrow it (no string building per outcome).
    private struct Key: Hashable {
        let scope: OutcomeSequences.Scope
        let session: String
        let name: Substring
    }

    private var all: UInt64 = 0
    private var counters: [Key: UInt64] = [:]

    mutating func next(for outcome: WireOutcome) -> OutcomeSequences {
        let feature = outcome.feature, action = outcome.action[...], session = outcome.session
        all += 1
        return OutcomeSequences([
            all,
            bump(Key(scope: .feature, session: "", name: feature)),
            bump(Key(scope: .action, session: "", name: action)),
            bump(Key(scope: .session, session: session, name: "")),
            bump(Key(scope: .sessionFeature, session: session, name: feature)),
            bump(Key(scope: .sessionAction, session: session, name: action)),
        ])
    }

    /// Drops the counters of sessions that ended; if one comes back its counters restart at 1
    /// (a subscriber sees the fall, as after a coordinator restart).
    mutating func forget(sessions: Set<String>) {
        guard !sessions.isEmpty else { return }
        counters = counters.filter { $0.key.session.isEmpty || !sessions.contains($0.key.session) }
    }

    /// One hash of the key: found, its counter is raised in place.
    private mutating func bump(_ key: Key) -> UInt64 {
        if let index = counters.index(forKey: key) {
            counters.values[index] += 1
            return counters.values[index]
        }
        counters[key] = 1
        return 1
    }
}
