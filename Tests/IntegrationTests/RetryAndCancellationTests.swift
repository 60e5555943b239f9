import ActionBusTestSupport
import ActionClient
import ActionWire
import Foundation
import Locking
import Testing

/// Retries and cancellation across processes: retryable failures are retried on the worker,
/// and a client's CANCEL stops the action on the worker and frees its credit.
@Suite("Retries and cancellation", .serialized, .timeLimit(.minutes(2)))
struct RetryAndCancellationTests {
    @Test func retryableFailuresAreRetriedOnTheWorkerWithinThePolicy() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator)

        let recovered = try bus.perform("Fault.flaky", ["--input", #"{"key":"a","failures":2}"#, "--json"])
        #expect(recovered.process.terminationStatus == 0, "\(recovered.stderr)")
        #expect(try OutcomeLine.parse(recovered.stdoutLines).first?.output?["attempts"]?.number == 3)

        let exhausted = try bus.perform("Fault.flaky", ["--input", #"{"key":"b","failures":9}"#, "--json"])
        #expect(exhausted.process.terminationStatus == 1)
        let failure = try OutcomeLine.parse(exhausted.stdoutLines).first?.error
        #expect(failure?.code == "transientFailure")
        #expect(failure?.message == "attempt 4 failed on purpose")
    }

    @Test func cancellingARunningRequestStopsItOnTheWorkerAndFreesTheCredit() async throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator()
        try bus.startWorker("w1", coordinator: coordinator, ["--credits", "1"])
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = bus.clients
        let client = try ActionClient(configuration: configuration)

        let outcome = Locked<Result<WireOutcome, ActionBusError>?>(nil)
        let requestID = client.makeRequestID()
        client.perform(action: "Clock.sleep", input: Array(#"{"ms":120000}"#.utf8), timeout: .seconds(150), requestID: requestID) { result in
            outcome.withLock { $0 = result }
        }
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.listedWorker("w1"))?.inFlight == 1 }, "the worker was not given the sleep")
        client.cancel(requestID: requestID)
        try expect(waitUntil { outcome.withLock { $0 } != nil }, "no outcome for the cancelled request")
        let cancelled = try #require(try outcome.withLock { $0 }?.get())
        #expect(cancelled.failureCode == "cancelled")
        // The coordinator keeps the worker's credit out until the worker answers the cancelled
        // request; that answer, discarded as late, shows the worker was told and stopped it.
        try expect(waitUntil(interval: .milliseconds(100)) { (try? bus.listedWorker("w1"))?.inFlight == 0 },
                   "the worker was not told: \(String(describing: try? bus.listedWorkers()))")
        #expect(try bus.statistics()["lateResultsDiscarded"] == 1)

        // The only credit is free again: the next request runs now, not in two minutes.
        let next = try bus.perform("Echo.say", ["--input", #"{"text":"next"}"#, "--timeout", "20", "--json"])
        #expect(next.process.terminationStatus == 0, "\(next.stderr)")
        await client.close()
    }
}

extension WireOutcome {
    var failureCode: String? {
        if case .failure(let code, _) = result { return code }
        return nil
    }
}
