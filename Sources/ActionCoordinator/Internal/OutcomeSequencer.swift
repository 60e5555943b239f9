import ActionWire

/// Numbers published outcomes per filter scope, so every subscriber can detect gaps, and names
/// the two topics each is published under. The `all` scope's number is the outcome's stream
/// position (``OutcomeHistory``), which every outcome has whether or not anyone listens.
struct OutcomeSequencer {
    /// What an outcome is published with: its numbers and its topics.
    struct Publication {
        let sequences: OutcomeSequences
        let topics: (byAction: [UInt8], bySession: [UInt8])
    }

    /// A counter's identity: the scope and the names that narrow it (no string building per outcome).
    private struct Key: Hashable {
        let scope: OutcomeSequences.Scope
        let session: String
        let name: Substring
    }

    /// Where the counters of the last outcome's action and session are in `counters`, and its
    /// topics: a run of one action in one session (the usual load) raises them without hashing
    /// five keys an outcome, and publishes under the same topics without building them again.
    /// The places are valid until a counter is added or removed (which may move them).
    private struct Run {
        let action: String
        let session: String
        let places: (Counters.Index, Counters.Index, Counters.Index, Counters.Index, Counters.Index)
        let topics: (byAction: [UInt8], bySession: [UInt8])
    }

    private typealias Counters = [Key: UInt64]

    private var counters: Counters = [:]
    private var run: Run?

    mutating func next(for outcome: WireOutcome, position all: UInt64) -> Publication {
        if let run, run.action == outcome.action, run.session == outcome.session {
            let sequences = OutcomeSequences([
                all, bump(at: run.places.0), bump(at: run.places.1), bump(at: run.places.2),
                bump(at: run.places.3), bump(at: run.places.4),
            ])
            return Publication(sequences: sequences, topics: run.topics)
        }
        let keys = Self.keys(for: outcome)
        let sequences = OutcomeSequences([all, bump(keys.0), bump(keys.1), bump(keys.2), bump(keys.3), bump(keys.4)])
        let topics = OutcomeTopic.topics(for: outcome)
        // Looked up once more only now that all five exist: adding one may have moved the others.
        if let feature = counters.index(forKey: keys.0), let action = counters.index(forKey: keys.1),
           let session = counters.index(forKey: keys.2), let sessionFeature = counters.index(forKey: keys.3),
           let sessionAction = counters.index(forKey: keys.4) {
            run = Run(action: outcome.action, session: outcome.session,
                      places: (feature, action, session, sessionFeature, sessionAction), topics: topics)
        }
        return Publication(sequences: sequences, topics: topics)
    }

    /// Drops the counters of sessions that ended; if one comes back its counters restart at 1
    /// (a subscriber sees the fall, as after a coordinator restart).
    mutating func forget(sessions: Set<String>) {
        guard !sessions.isEmpty else { return }
        counters = counters.filter { $0.key.session.isEmpty || !sessions.contains($0.key.session) }
        run = nil
    }

    /// The keys of an outcome's counters below `all`, in ``OutcomeSequences/Scope`` order.
    private static func keys(for outcome: WireOutcome) -> (Key, Key, Key, Key, Key) {
        let feature = outcome.feature, action = outcome.action[...], session = outcome.session
        return (
            Key(scope: .feature, session: "", name: feature),
            Key(scope: .action, session: "", name: action),
            Key(scope: .session, session: session, name: ""),
            Key(scope: .sessionFeature, session: session, name: feature),
            Key(scope: .sessionAction, session: session, name: action)
        )
    }

    /// One hash of the key: found, its counter is raised in place.
    private mutating func bump(_ key: Key) -> UInt64 {
        if let index = counters.index(forKey: key) { return bump(at: index) }
        counters[key] = 1
        run = nil
        return 1
    }

    private mutating func bump(at index: Counters.Index) -> UInt64 {
        counters.values[index] += 1
        return counters.values[index]
    }
}
