import ActionCoordinator
import ActionJournal
import ActionWire
import Testing

/// Several requests or outcomes to one message (ABP/3): the core takes them in order, and
/// what the driver could not send comes back to it.
@Suite("Coordinator core: batches")
struct CoordinatorBatchTests {
    let w1 = WorkerID([0xA1])
    let w2 = WorkerID([0xB2])

    @Test func aBatchOfRequestsIsAcceptedAndSentInOrder() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 10)
        let requests = (1...3).map { h.request("b\($0)", session: "s") }
        h.send(.performBatch(requests))
        #expect(h.acceptedIDs == ["b1", "b2", "b3"])
        #expect(h.requestIDs(to: w1) == ["b1", "b2", "b3"])
        #expect(h.core.statistics.accepted == 3)
    }

    /// The requests of a PERFORM as the driver hands them over: decoded with their inputs left
    /// in the message (`unpackLeavingInput`), each taken with that slice.
    private func performLeavingInputs(_ requests: [WireRequest], to h: CoordinatorHarness) throws {
        var message = PackedFrames()
        ClientMessage.performBatch(requests).encode(into: &message)
        let decoded = try (1..<message.count).map {
            try WireRequest.unpackLeavingInput(message.frame(at: $0), command: .perform, limits: WireLimits())
        }
        h.core.receivedPerforms(count: decoded.count, from: h.client, now: h.at(.zero)) { take in
            for (request, input) in decoded {
                #expect(request.input.isEmpty)
                take(request, input)
            }
        }
    }

    @Test func inputsLeftInTheMessageGoToWorkersAndTheJournalWholeAndTellResendsFromReuses() throws {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 10)
        let requests = [h.request("i1", input: #"{"text":"one"}"#), h.request("i2", input: #"{"text":"two"}"#), h.request("i3", input: "")]
        try performLeavingInputs(requests, to: h)
        #expect(h.acceptedIDs == ["i1", "i2", "i3"])
        #expect(h.requests(to: w1).map(\.input) == requests.map(\.input))
        // The journal keeps the whole request, input and all.
        let journaled = h.outbox.journaled.compactMap { $0.acceptance?.request }
        #expect(journaled == requests)
        // A resend with the same input is the same request; with another, a conflict.
        try performLeavingInputs([requests[0]], to: h)
        var reused = requests[1]
        reused.input = Array(#"{"text":"other"}"#.utf8)
        try performLeavingInputs([reused], to: h)
        #expect(h.core.statistics.duplicates == 1)
        #expect(h.outcomes.map(\.failureCode) == ["idempotencyConflict"])
        #expect(h.requests(to: w1).count == 3)
    }

    @Test func aBatchOfResultsReturnsEveryCreditAndAnswersEveryClient() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 2)
        for n in 1...4 { h.perform("r\(n)") }
        let sent = h.requests(to: w1)
        #expect(sent.map(\.requestID) == ["r1", "r2"])
        let outcomes = sent.map {
            WireOutcome(requestID: $0.requestID, action: $0.action, session: "", worker: "w1", closeActionStack: false,
                        result: .success(contentType: WireRequest.json, output: Array("{}".utf8)))
        }
        h.worker(w1, sends: .resultBatch(outcomes))
        #expect(h.outcome("r1")?.isSuccess == true)
        #expect(h.outcome("r2")?.isSuccess == true)
        #expect(h.requestIDs(to: w1) == ["r1", "r2", "r3", "r4"])
        #expect(h.core.statistics.running == 2)
    }

    @Test func requestsWhoseMessageCouldNotLeaveGoElsewhereInOrderAndUncounted() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 5)
        h.perform("r1")
        h.perform("r2")
        #expect(h.requestIDs(to: w1) == ["r1", "r2"])
        // The driver's message to w1 found the connection gone.
        h.core.undelivered(["r1", "r2"], to: w1, now: h.at(.zero))
        #expect(h.core.statistics.queued == 2)
        #expect(h.core.statistics.running == 0)
        h.ready(w2, credits: 5)
        #expect(h.requestIDs(to: w2) == ["r1", "r2"])
        #expect(h.core.statistics.redelivered == 0)
        // w1 is out of the pool until it is heard from: nothing more goes to it.
        h.perform("r3")
        #expect(h.requestIDs(to: w1) == ["r1", "r2"])
        #expect(h.requestIDs(to: w2) == ["r1", "r2", "r3"])
    }

    @Test func aSessionWhoseMessageCouldNotLeaveWaitsForItsHostAndKeepsItsOrder() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 5)
        h.ready(w2, credits: 5)
        h.perform("s1", session: "s")
        h.perform("s2", session: "s")
        let host = h.requestIDs(to: w1).isEmpty ? w2 : w1
        let other = host == w1 ? w2 : w1
        h.core.undelivered(["s1", "s2"], to: host, now: h.at(.zero))
        // The host may be reconnecting under its routing id: the session waits for it...
        #expect(h.requests(to: other).isEmpty)
        #expect(h.core.statistics.queued == 2)
        // ...and when it is heard from again, gets both, in order.
        h.worker(host, sends: .heartbeat)
        #expect(h.requestIDs(to: host) == ["s1", "s2", "s1", "s2"])
        #expect(h.core.statistics.redelivered == 0)
    }

    @Test func aRequestFinishedBeforeItsMessageFailedStillReturnsItsCredit() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 1)
        h.perform("r1")
        #expect(h.requestIDs(to: w1) == ["r1"])
        // Cancelled by its client while its message was waiting to go; then the message failed.
        h.send(.cancel(requestID: "r1"))
        #expect(h.outcome("r1")?.failureCode == BusErrorCode.cancelled)
        h.core.undelivered(["r1"], to: w1, now: h.at(.zero))
        // w1 never had it: its one credit is free again once it is heard from.
        h.perform("r2")
        h.worker(w1, sends: .heartbeat)
        #expect(h.requestIDs(to: w1) == ["r1", "r2"])
    }

    @Test(arguments: [false, true])
    func aRequestThatNeverLeftIsNotCountedAsDeliveredWhenItsWorkerExpires(neverLeft: Bool) {
        // One delivery allowed: a counted death would poison the request at once.
        let h = CoordinatorHarness { $0.maxDeliveries = 1 }
        h.ready(w1, credits: 5)
        h.perform("r1")
        #expect(h.requestIDs(to: w1) == ["r1"])
        if neverLeft { h.outbox.unsent[w1] = ["r1"] }  // still in the driver's batch for w1
        h.tick(at: .seconds(4))                         // w1 silent past its liveness
        #expect(h.core.statistics.workers == 0)
        if neverLeft {
            #expect(h.outcome("r1") == nil)
            #expect(!h.outbox.journaled.contains(.workerDied(requestID: "r1")))
            #expect(h.core.statistics.queued == 1)
            h.ready(w2, credits: 5, at: .seconds(4))
            #expect(h.requestIDs(to: w2) == ["r1"])
        } else {
            // Sent, then its worker died: that delivery counts, and with it the limit is reached.
            #expect(h.outcome("r1")?.failureCode == BusErrorCode.poisoned)
        }
    }

    @Test func requestsNotYetSentToAWorkerThatLeavesAreWithdrawn() {
        let h = CoordinatorHarness()
        h.ready(w1, credits: 5)
        h.perform("r1")
        h.worker(w1, sends: .disconnect)
        #expect(h.outbox.withdrawn == [w1])
        #expect(h.core.statistics.queued == 1)
        // A late report of the failed message changes nothing: r1 is queued, not on w1.
        h.core.undelivered(["r1"], to: w1, now: h.at(.zero))
        #expect(h.core.statistics.queued == 1)
        h.ready(w2, credits: 5)
        #expect(h.requestIDs(to: w2) == ["r1"])
    }
}
