import ActionWire
import ActionWorker
import Foundation
import Testing

/// A worker sends its recent results again (RESENT) to each coordinator that welcomes it: the
/// one before may have lost them.
@Suite("Worker results sent again", .serialized)
struct WorkerResendTests {
    static let terms = WorkerTerms(maxMessageBytes: 1 << 20, heartbeatMilliseconds: 1_000, heartbeatLiveness: 30)

    @Test func resultsSentBeforeARegistrationAreSentAgainAfterItsWelcome() async throws {
        try await withWorker { coordinator, worker in
            let first = try coordinator.perform("Echo.say", input: #"{"text":"one"}"#, requestID: "one")
            let second = try coordinator.perform("Echo.say", input: #"{"text":"two"}"#, requestID: "two")
            // What a coordinator that does not know the worker (it restarted) answers.
            try coordinator.send(.disconnect)
            _ = try coordinator.nextReady()
            try coordinator.send(.welcome(Self.terms))
            // Each RESULT is sent again as it went: here one RESENT each.
            var outcomes: [WireOutcome] = []
            while outcomes.count < 2 {
                let resent = try coordinator.next("RESENT") { if case .resent = $0 { true } else { false } }
                if case .resent(let more) = resent.message { outcomes += more }
            }
            #expect(Set(outcomes.map(\.requestID)) == [first.requestID, second.requestID] && outcomes.count == 2)
            #expect(outcomes.first == second, "the newest first")
            // Then an empty RESENT: all it kept was sent.
            _ = try coordinator.next("the RESENT that ends them") { $0 == .resent([]) }
            #expect(await worker.statistics().resultsResent == 2)
            // The worker serves on as before.
            #expect(try coordinator.perform("Echo.say", input: #"{"text":"three"}"#).isSuccess)
        }
    }

    @Test func aWorkerWithNoResendWindowSendsNothingAgain() async throws {
        try await withWorker(configure: { $0.resendWindow = .zero }) { coordinator, worker in
            _ = try coordinator.perform("Echo.say", input: #"{"text":"one"}"#)
            try coordinator.send(.disconnect)
            _ = try coordinator.nextReady()
            try coordinator.send(.welcome(Self.terms))
            // A RESENT would leave as the WELCOME is read, before this request's RESULT.
            _ = try coordinator.perform("Echo.say", input: #"{"text":"after"}"#)
            #expect(!coordinator.log.contains { if case .resent(let outcomes) = $0.message { !outcomes.isEmpty } else { false } })
            #expect(coordinator.log.contains { $0.message == .resent([]) }, "the RESENT that ends them, empty")
            #expect(await worker.statistics().resultsResent == 0)
        }
    }
}
