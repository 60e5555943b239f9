import ActionCoordinator
import ActionCore
import ActionJournal
import ActionTransport
import ActionWire
import Benchmark
import ExampleFeatures
import Foundation
import Logging
import ZeroMQ

// Micro-benchmarks of the hot path, per request: time and allocations (ordo-one/benchmark, its
// malloc interposer counting). Each sample handles `batch` requests, prepared before the clock
// starts, and the figures are scaled to one request. Run: scripts/perf/microbench.sh.

/// Requests per sample; the figures are per request (`scalingFactor: .kilo`).
let batch = 1_000
var configuration: Benchmark.Configuration {
    Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 2_000)
}
let input = Array(#"{"text":"a forty-six byte text, as the benchmarks use"}"#.utf8)

func request(_ n: Int) -> WireRequest {
    WireRequest(requestID: "0123456789abcdef0123456789abcdef:\(n)", action: "Echo.say", timeoutMilliseconds: 30_000, input: input)
}

func outcome(for request: WireRequest) -> WireOutcome {
    WireOutcome(requestID: request.requestID, action: request.action, session: request.session, worker: "w1",
                closeActionStack: false, result: .success(contentType: WireRequest.json, output: request.input))
}

/// A coordinator outbox that sends nothing: the routing step alone.
final class DiscardingOutbox: CoordinatorOutbox {
    func send(_ reply: ClientReply, to client: ClientAddress) {}
    func send(_ instruction: WorkerInstruction, to worker: WorkerID) -> Bool { true }
    func publish(_ message: StreamMessage) {}
    var hasSubscribers: Bool { false }
}

/// One sample of the coordinator core: `batch` requests accepted, routed to one worker, their
/// results taken and acknowledged, PERFORMs and RESULTs carrying `batchSize` records each.
func runCoreRound(_ benchmark: Benchmark, batchSize: Int) {
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    // The core holds its outbox unowned, as the driver that owns both does.
    let outbox = DiscardingOutbox()
    let core = CoordinatorCore(configuration: CoordinatorConfiguration(), outbox: outbox, logger: logger)
    let worker = WorkerID([0xA1])
    let client = ClientAddress(routingID: Array("0123456789abcdef0123456789abcdef".utf8))
    let start = ContinuousClock.now
    core.received(.ready(WorkerRegistration(name: "w1", credits: UInt32(batch), actions: ["Echo.say"])), from: worker, now: start)
    let requests = (0..<batch).map(request)
    let ids = requests.map(\.requestID)
    let performs: [ClientMessage] = stride(from: 0, to: batch, by: batchSize).map {
        batchSize == 1 ? .perform(requests[$0]) : .performBatch(Array(requests[$0..<min(batch, $0 + batchSize)]))
    }
    let outcomes = requests.map(outcome(for:))
    let results: [WorkerMessage] = stride(from: 0, to: batch, by: batchSize).map {
        batchSize == 1 ? .result(outcomes[$0]) : .resultBatch(Array(outcomes[$0..<min(batch, $0 + batchSize)]))
    }
    benchmark.startMeasurement()
    for message in performs { core.received(message, from: client, now: start) }
    for message in results { core.received(message, from: worker, now: start) }
    core.received(.acknowledge(requestIDs: ids), from: client, now: start)
    benchmark.stopMeasurement()
    withExtendedLifetime(outbox) {}
}

let benchmarks: @Sendable () -> Void = {
    // MARK: Codec

    Benchmark("codec: encode a PERFORM of one request", configuration: configuration) { benchmark in
        let requests = (0..<batch).map(request)
        var frames = Multipart()
        benchmark.startMeasurement()
        for request in requests {
            frames.removeAll()
            ClientMessage.perform(request).encode(into: &frames)
            blackHole(frames.byteCount)
        }
    }

    Benchmark("codec: decode a PERFORM of one request", configuration: configuration) { benchmark in
        let messages: [Multipart] = (0..<batch).map { n in
            var frames = Multipart()
            ClientMessage.perform(request(n)).encode(into: &frames)
            return frames
        }
        benchmark.startMeasurement()
        for frames in messages { blackHole(try ClientMessage.decode(frames)) }
    }

    Benchmark("codec: decode a RESULT of 256 outcomes (per outcome)", configuration: configuration) { benchmark in
        let outcomes = (0..<256).map { outcome(for: request($0)) }
        var frames = Multipart()
        WorkerMessage.resultBatch(outcomes).encode(into: &frames)
        benchmark.startMeasurement()
        // About `batch` outcomes a sample, 256 a message.
        for _ in 0..<(batch / 256) { blackHole(try WorkerMessage.decode(frames)) }
    }

    // The coordinator's outcome path: a RESULT's records read and sent on to a client as an
    // OUTCOME, either kept as the bytes they came in (what the coordinator does) or decoded and
    // encoded again (what it did before), per outcome.
    for forwarding in [true, false] {
        let name = forwarding ? "codec: forward a RESULT of 250 outcomes as an OUTCOME, records kept (per outcome)"
            : "codec: the same, each outcome decoded and encoded again (per outcome)"
        Benchmark(name, configuration: configuration) { benchmark in
            var result = PackedFrames()
            // 250 a message, four messages: exactly `batch` outcomes a sample.
            WorkerMessage.resultBatch((0..<250).map { outcome(for: request($0)) }).encode(into: &result)
            var reply = PackedFrames()
            benchmark.startMeasurement()
            for _ in 0..<(batch / 250) {
                var outcomes: [WireOutcome] = []
                outcomes.reserveCapacity(250)
                for index in 1..<result.count {
                    let record = result.frame(at: index)
                    outcomes.append(forwarding
                        ? try WireOutcome.unpackForwarding(record, command: .result, limits: WireLimits())
                        : try WireOutcome.unpack(record, command: .result, limits: WireLimits()))
                }
                reply.removeAll()
                ClientReply.outcomeBatch(outcomes).encode(into: &reply)
                blackHole(reply.bytes.count)
            }
        }
    }

    // MARK: Coordinator

    Benchmark("coordinator: accept, route and finish one request (core, no sockets)", configuration: configuration) { benchmark in
        runCoreRound(benchmark, batchSize: 1)
    }

    Benchmark("coordinator: the same, requests and results in batches of 100 (as clients and workers send them)", configuration: configuration) { benchmark in
        runCoreRound(benchmark, batchSize: 100)
    }

    // MARK: Journal

    Benchmark("journal: append acceptance and outcome, one commit (write + fdatasync) per 1000", configuration: configuration) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("actionbus-microbench-\(UUID().uuidString)").path
        let journal = try RequestJournal(directory: directory)
        defer {
            journal.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let requests = (0..<batch).map(request)
        let deadline = Date().addingTimeInterval(30)
        benchmark.startMeasurement()
        for request in requests {
            journal.append(.accepted(request, deadline: deadline))
            journal.append(.finished(outcome(for: request)))
        }
        try journal.commit()
    }

    // MARK: ActionSession

    Benchmark("session: perform Echo.sayDirect in process (typed, completes inline)", configuration: configuration) { benchmark in
        let session = ActionSession(name: "bench", catalog: ExampleApp.catalog)
        let message = SayAction.Message(text: "a forty-six byte text, as the benchmarks use")
        benchmark.startMeasurement()
        for _ in 0..<batch {
            session.perform(EchoFeature.sayDirect, input: message) { blackHole($0) }
        }
    }

    Benchmark("session: perform Echo.sayDirect by name with JSON (a worker's path, completes inline)", configuration: configuration) { benchmark in
        let session = ActionSession(name: "bench", catalog: ExampleApp.catalog)
        benchmark.startMeasurement()
        for _ in 0..<batch {
            session.performForwarding(named: "Echo.sayDirect", jsonInput: input) { blackHole($0) }
        }
    }
}
