@testable import ActionCoordinator
@testable import ActionWire
import Testing

/// The stream's sequence numbers, checked against counting every scope from scratch, and its
/// topics against building them afresh: runs of one action and session (which reuse their
/// counters' places and topics), changes of action and session, new counters made in the
/// middle, and sessions forgotten.
@Suite("Outcome sequencer")
struct OutcomeSequencerTests {
    /// What each scope's counter should say: every earlier outcome that shares its names.
    struct Model {
        var seen: [(action: String, session: String)] = []

        mutating func next(action: String, session: String) -> [UInt64] {
            seen.append((action, session))
            let feature = OutcomeTopic.split(action).feature
            func count(_ matches: ((action: String, session: String)) -> Bool) -> UInt64 { UInt64(seen.filter(matches).count) }
            return [
                UInt64(seen.count),
                count { OutcomeTopic.split($0.action).feature == feature },
                count { $0.action == action },
                count { $0.session == session },
                count { $0.session == session && OutcomeTopic.split($0.action).feature == feature },
                count { $0.session == session && $0.action == action },
            ]
        }
    }

    static func outcome(_ action: String, _ session: String) -> WireOutcome {
        WireOutcome(requestID: "r", action: action, session: session, worker: "w", closeActionStack: false,
                    result: .success(contentType: WireRequest.json, output: []))
    }

    @Test func numbersMatchACountOfEveryScope() {
        var sequencer = OutcomeSequencer()
        var model = Model()
        let steps: [(String, String)] = [
            ("Echo.say", ""), ("Echo.say", ""), ("Echo.say", ""),
            ("Echo.sayDirect", ""), ("Echo.say", ""), ("Echo.say", "s1"), ("Echo.say", "s1"),
            ("Math.add", "s1"), ("Math.add", "s1"), ("Echo.say", "s2"), ("Echo.say", ""), ("Echo.say", ""),
        ]
        for (index, (action, session)) in steps.enumerated() {
            let outcome = Self.outcome(action, session)
            let publication = sequencer.next(for: outcome, position: UInt64(index + 1))
            #expect(publication.sequences.values == model.next(action: action, session: session), "\(action) in '\(session)'")
            // The topics kept for a run are this outcome's, not the run's before it.
            let topics = OutcomeTopic.topics(for: outcome)
            #expect(publication.topics.byAction == topics.byAction && publication.topics.bySession == topics.bySession, "\(action) in '\(session)'")
        }
    }

    @Test func aForgottenSessionStartsAgainAtOneAndTheRunAfterItStillCounts() {
        var sequencer = OutcomeSequencer()
        _ = sequencer.next(for: Self.outcome("Echo.say", "s1"), position: 1)
        _ = sequencer.next(for: Self.outcome("Echo.say", "s1"), position: 2)
        sequencer.forget(sessions: ["s1"])
        let again = sequencer.next(for: Self.outcome("Echo.say", "s1"), position: 3).sequences
        // The position (the stream-wide number) and per-action counters go on; the session's counters restart.
        #expect(again.values == [3, 3, 3, 1, 1, 1])
        #expect(sequencer.next(for: Self.outcome("Echo.say", "s1"), position: 4).sequences.values == [4, 4, 4, 2, 2, 2])
    }
}
