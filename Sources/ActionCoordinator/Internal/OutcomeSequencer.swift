import ActionWire

/// Numbers published outcomes per filter scope, so every subscriber can detect gaps.
struct OutcomeSequencer {
    private var all: UInt64 = 0
    private var counters: [String: UInt64] = [:]

    mutating func next(for outcome: WireOutcome) -> OutcomeSequences {
        let feature = String(outcome.feature), session = outcome.session
        all += 1
        return OutcomeSequences([
            all,
            bump("F\u{1F}" + feature),
            bump("A\u{1F}" + outcome.action),
            bump("S\u{1F}" + session),
            bump("SF\u{1F}" + session + "\u{1F}" + feature),
            bump("SA\u{1F}" + session + "\u{1F}" + outcome.action),
        ])
    }

    private mutating func bump(_ key: String) -> UInt64 {
        counters[key, default: 0] += 1
        return counters[key]!
    }
}
