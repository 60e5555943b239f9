import ActionBusTestSupport
import ActionTransport
import ActionWire
import Foundation
import Testing
import ZeroMQ

/// What happens when a client does not keep up, and when the coordinator itself stalls.
@Suite("Flow control and stalls", .serialized, .timeLimit(.minutes(2)))
struct FlowControlTests {
    /// A client that reads nothing while its replies pile up far past both high-water marks
    /// still gets every reply, in order, once it reads: nothing is dropped at the mark.
    @Test func repliesToALiveClientThatFallsBehindWaitInsteadOfBeingDropped() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal", "--peer-hwm", "50"])
        try bus.startWorker("w1", coordinator: coordinator, ["--credits", "64"])
        let context = try ZMQContext()
        let dealer = try Socket(context, type: .dealer)
        defer { dealer.close() }
        try dealer.setOption(.receiveHighWaterMark, 10)
        try dealer.setOption(.sendHighWaterMark, 10_000)
        try dealer.setOption(.routingID, Array("slow-reader".utf8))
        try dealer.setOption(.receiveTimeout, 10_000)
        try dealer.connect(bus.clients)

        // Outcomes travel many to a message (ABP/3): enough of them, and large enough, to fill
        // the kernel's socket buffers and both high-water marks.
        let count = 10_000
        let input = Array(#"{"text":""#.utf8) + [UInt8](repeating: 0x78, count: 2_000) + Array(#""}"#.utf8)
        for n in 1...count {
            var frames = WireFrameList()
            ClientMessage.perform(WireRequest(
                requestID: "slow-reader:\(n)", action: "Echo.say", timeoutMilliseconds: 60_000, input: input
            )).encode(into: &frames)
            try dealer.send(Multipart(frames.frames))
        }
        // Every request finishes while the client reads nothing: the replies wait.
        try expect(waitUntil(timeout: .seconds(60), interval: .milliseconds(200)) { (try? bus.statistics()["completed"]) == count },
                   "the requests did not complete: \(String(describing: try? bus.statistics()))")
        let waiting = try bus.statistics()
        #expect(waiting["deferredReplies", default: 0] > 0, "the test never filled the client's queue: \(waiting)")

        // ACCEPTED goes only for requests still without an outcome once the acceptance delay
        // has passed, so some have one and some not; none comes after its request's OUTCOME.
        var outcomes: [String] = []
        var answered: Set<String> = []
        while outcomes.count < count {
            let message = try dealer.receiveBusMessage()
            switch try ClientReply.decode(WireFrameList(message.frames)) {
            case .accepted(let requestIDs):
                #expect(answered.isDisjoint(with: requestIDs), "ACCEPTED came after the OUTCOME")
            case .outcome(let outcome):
                outcomes.append(outcome.requestID)
                answered.insert(outcome.requestID)
            case .outcomeBatch(let batch):
                outcomes.append(contentsOf: batch.map(\.requestID))
                answered.formUnion(batch.map(\.requestID))
            default:
                break
            }
        }
        #expect(Set(outcomes).count == count)
        let after = try bus.statistics()
        #expect(after["undeliverableReplies"] == 0, "\(after)")
    }

    /// A coordinator frozen past its workers' liveness (SIGSTOP, as a long fsync or a VM pause
    /// would) does not count its workers dead: the running request finishes once, on the same
    /// worker, and nothing is redelivered.
    @Test func aCoordinatorStallIsNotTheDeathOfItsWorkers() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal", "--heartbeat-ms", "300"])
        try bus.startWorker("w1", coordinator: coordinator, ["--heartbeat-ms", "300"])
        let perform = try bus.start("perform", [
            "perform", "Clock.sleep", "--input", #"{"ms":3000}"#, "--timeout", "30", "--json", "--coordinator", bus.clients,
        ])
        try expect(waitUntil(interval: .milliseconds(200)) { (try? bus.statistics()["running"]) == 1 }, "the request did not start")
        coordinator.signal(SIGSTOP)
        // Past the worker's liveness (3 × 300 ms) twice over: it reconnects meanwhile.
        Thread.sleep(forTimeInterval: 2)
        coordinator.signal(SIGCONT)
        try expect(perform.waitForExit(timeout: .seconds(30)) != nil, "the perform did not finish")
        #expect(perform.process.terminationStatus == 0, "\(perform.stdout) \(perform.stderr)")
        let outcomes = try OutcomeLine.parse(perform.stdoutLines)
        #expect(outcomes.map(\.worker) == ["w1"])
        let stats = try bus.statistics()
        #expect(stats["workersExpired"] == 0, "\(stats)")
        #expect(stats["redelivered"] == 0, "\(stats)")
        #expect(stats["stalls", default: 0] >= 1, "\(stats)")
    }
}

/// A worker keeps to the coordinator's terms, whatever it was started with.
@Suite("Worker terms", .serialized, .timeLimit(.minutes(2)))
struct WorkerTermsTests {
    @Test func anOutputOverTheCoordinatorsLimitFailsResultTooLargeAndCostsNothingElse() throws {
        let bus = try BusFixture()
        // The coordinator's limit is far below the worker's own (1 MiB), and its heartbeat faster.
        let coordinator = try bus.startCoordinator(["--no-journal", "--max-message-bytes", "4096", "--heartbeat-ms", "200"])
        let worker = try bus.startWorker("w1", coordinator: coordinator)
        let big = try bus.perform("Fault.oversize", ["--input", #"{"bytes":100000}"#, "--json", "--timeout", "10"])
        let outcome = try OutcomeLine.parse(big.stdoutLines).first
        #expect(outcome?.error?.code == "resultTooLarge", "\(big.stdout) \(big.stderr)")
        #expect(outcome?.error?.message.contains("4096") == true)
        // Just over the limit (what the coordinator would have dropped as malformed) too.
        let over = try bus.perform("Fault.oversize", ["--input", #"{"bytes":4100}"#, "--json", "--timeout", "10"])
        #expect(try OutcomeLine.parse(over.stdoutLines).first?.error?.code == "resultTooLarge")
        let small = try bus.perform("Fault.oversize", ["--input", #"{"bytes":100}"#, "--json"])
        #expect(small.process.terminationStatus == 0)
        let stats = try bus.statistics()
        #expect(stats["workersExpired"] == 0 && stats["malformedWorkerMessages"] == 0 && stats["redelivered"] == 0, "\(stats)")
        // The worker took the coordinator's heartbeat (200 ms), not its own default.
        let heartbeats = worker.logRecords(withField: "heartbeat.interval").compactMap { $0.fields["heartbeat.interval"] }
        #expect(heartbeats.last == "\(Duration.milliseconds(200))", "\(worker.stderr)")
    }
}
