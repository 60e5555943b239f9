import ActionBusTestSupport
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
            try coordinator.registerAgain(Self.terms)
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

    /// The worker's heartbeats carry a mark; once the coordinator says everything sent before a
    /// mark is durable, the results sent before it are not kept (nor sent again). Results of an
    /// earlier registration stay, whatever the mark: they went to a coordinator before.
    @Test func resultsTheCoordinatorSaysAreDurableAreNotSentAgain() async throws {
        try await withWorker(configure: { $0.heartbeatInterval = .milliseconds(100) }) { coordinator, worker in
            _ = try coordinator.perform("Echo.say", input: #"{"text":"one"}"#, requestID: "one")
            _ = try coordinator.perform("Echo.say", input: #"{"text":"two"}"#, requestID: "two")
            let heartbeat = try coordinator.next("a marked heartbeat") { if case .markedHeartbeat = $0 { true } else { false } }
            guard case .markedHeartbeat(let mark) = heartbeat.message else { return }
            let third = try coordinator.perform("Echo.say", input: #"{"text":"three"}"#, requestID: "three")
            #expect(await worker.statistics().resultsKept == 3)

            try coordinator.send(.resultsTaken(mark: mark))
            try expect(await eventually { await worker.statistics().resultsKept == 1 }, "the two results before the mark were kept")

            try coordinator.registerAgain(Self.terms)
            let resent = try coordinator.next("RESENT") { if case .resent(let outcomes) = $0 { !outcomes.isEmpty } else { false } }
            #expect(resent.message == .resent([third]), "only the result sent after the mark")
            _ = try coordinator.next("the RESENT that ends them") { $0 == .resent([]) }

            // A mark answered now covers only what was sent since the last READY.
            try coordinator.send(.resultsTaken(mark: .max))
            _ = try coordinator.perform("Echo.say", input: #"{"text":"four"}"#)
            #expect(await worker.statistics().resultsKept == 2, "the result sent before the READY stays for the next coordinator")
        }
    }

    /// A request that came before the worker's last READY (a coordinator before dispatched it)
    /// and finished after it is answered to a coordinator that may hold its answer in memory
    /// only: its result stays for the next one whatever mark is answered.
    @Test func aResultForARequestFromBeforeTheLastReadyStaysWhateverTheMark() async throws {
        try await withWorker(configure: { $0.heartbeatInterval = .milliseconds(100) }) { coordinator, worker in
            try coordinator.send(.request(WireRequest(
                requestID: "slow", action: "Clock.sleep", timeoutMilliseconds: 10_000, input: Array(#"{"ms":500}"#.utf8)
            )))
            // Read after the REQUEST (one connection keeps the order): the request runs on.
            try coordinator.registerAgain(Self.terms)
            let slow = try coordinator.nextResult()
            #expect(slow.requestID == "slow")
            _ = try coordinator.perform("Echo.say", input: #"{"text":"fresh"}"#, requestID: "fresh")
            let heartbeat = try coordinator.next("a marked heartbeat") { if case .markedHeartbeat = $0 { true } else { false } }
            guard case .markedHeartbeat(let mark) = heartbeat.message else { return }
            try coordinator.send(.resultsTaken(mark: mark))
            try expect(await eventually { await worker.statistics().resultsKept == 1 }, "the fresh result was kept, or the slow one let go")

            try coordinator.registerAgain(Self.terms)
            let resent = try coordinator.next("RESENT") { if case .resent(let outcomes) = $0 { !outcomes.isEmpty } else { false } }
            #expect(resent.message == .resent([slow]))
        }
    }

    @Test func aWorkerWithNoResendWindowSendsNothingAgain() async throws {
        try await withWorker(configure: { $0.resendWindow = .zero }) { coordinator, worker in
            _ = try coordinator.perform("Echo.say", input: #"{"text":"one"}"#)
            try coordinator.registerAgain(Self.terms)
            // A RESENT would leave as the WELCOME is read, before this request's RESULT.
            _ = try coordinator.perform("Echo.say", input: #"{"text":"after"}"#)
            #expect(!coordinator.log.contains { if case .resent(let outcomes) = $0.message { !outcomes.isEmpty } else { false } })
            #expect(coordinator.log.contains { $0.message == .resent([]) }, "the RESENT that ends them, empty")
            #expect(await worker.statistics().resultsResent == 0)
        }
    }
}
