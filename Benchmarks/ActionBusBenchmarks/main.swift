import ActionClient
import ActionCoordinator
import ActionWire
import ActionWorker
import Dispatch
import ExampleFeatures
import Foundation
import Locking
import Logging
import ZeroMQ

// Benchmarks of the wrapper's hot path, the I/O loop hand-off and the whole bus.
// Run with scripts/bench.sh (release build); figures go to benchmarks/results.md.

let report = Report()
let outputPath = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "benchmarks/results.md"
let messageCount = 1_000_000
let payload = [UInt8](repeating: 0x2A, count: 64)

report.add("# ActionBus benchmarks")
report.add("")
report.add("Release build, libzmq \(ZMQ.versionString), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date()).")
report.add("")

// MARK: Wrapper throughput

/// PUSH→PULL over tcp loopback: the sender on its own thread, the receiver here.
@MainActor
func pushPull(_ label: String, receive: @escaping (Socket) throws -> Int) throws {
    let context = try ZMQContext()
    let pull = try Socket(context, type: .pull)
    try pull.setOption(.receiveHighWaterMark, 100_000)
    try pull.bind("tcp://127.0.0.1:*")
    let endpoint = try pull.lastEndpoint
    let sender = Thread {
        do {
            let push = try Socket(context, type: .push)
            try push.setOption(.sendHighWaterMark, 100_000)
            try push.connect(endpoint)
            try payload.withUnsafeBytes { bytes in
                for _ in 0..<messageCount { try push.send(bytes) }
            }
            // LINGER 0 (the wrapper's default) would drop what is still queued on close.
            try push.setOption(.linger, -1)
            push.close()
        } catch {
            print("sender failed: \(error)")
        }
    }
    var received = 0
    sender.start()
    // The first message starts the clock, so connection setup is not counted.
    received += try receive(pull)
    let elapsed = try measure {
        while received < messageCount { received += try receive(pull) }
    }
    pull.close()
    let rate = Double(messageCount - 1) / elapsed.seconds
    report.add(String(format: "| %@ | %.2f M msg/s |", label, rate / 1e6))
}

report.add("## libzmq wrapper: PUSH→PULL, 64-byte messages, tcp loopback, \(messageCount) messages")
report.add("")
report.add("| receive path | throughput |")
report.add("| --- | --- |")
var reusable = Multipart()
try pushPull("`receive(into:)` a reused `Multipart` (the bus's path)") { socket in
    try socket.receive(into: &reusable)
    return reusable.count
}
try pushPull("`receive { bytes, more in }` (borrowed bytes)") { socket in
    try socket.receive { bytes, _ in bytes.count > 0 ? 1 : 1 }
}
try pushPull("a new `[UInt8]` array per frame (what the wrapper avoids)") { socket in
    let frame: [UInt8] = try socket.receive { bytes, _ in Array(bytes) }
    var frames: [[UInt8]] = [frame]
    frames.reserveCapacity(1)
    return frames.count
}
report.add("")

// MARK: Round trip

do {
    let context = try ZMQContext()
    let bound = Locked<String?>(nil)
    let ready = DispatchSemaphore(value: 0)
    // The echoing ROUTER lives entirely on its own thread: sockets never cross threads.
    let echo = Thread {
        var message = Multipart()
        do {
            let router = try Socket(context, type: .router)
            defer { router.close() }
            try router.bind("tcp://127.0.0.1:*")
            bound.withLock { $0 = try? router.lastEndpoint }
            ready.signal()
            while true {
                try router.receive(into: &message)
                if message.count == 2, message[1].isEmpty { break }
                try router.send(message)
            }
        } catch {
            ready.signal()
        }
    }
    echo.start()
    ready.wait()
    let dealer = try Socket(context, type: .dealer)
    try dealer.connect(bound.withLock { $0 } ?? "tcp://127.0.0.1:1")
    var samples = LatencySamples(capacity: 20_000)
    var incoming = Multipart()
    for index in 0..<21_000 {
        let elapsed = try measure {
            try payload.withUnsafeBytes { try dealer.send($0) }
            try dealer.receive(into: &incoming)
        }
        if index >= 1000 { samples.add(elapsed) }
    }
    try dealer.send([UInt8]())
    dealer.close()
    report.add("## DEALER↔ROUTER round trip, tcp loopback, 20,000 round trips")
    report.add("")
    report.add(samples.summary)
    report.add("")
}

// MARK: I/O loop hand-off

final class NullDriver: IOLoopDriver {}

do {
    let context = try ZMQContext()
    let loop = try IOLoop(name: "bench-io", context: context) { _ in NullDriver() }
    var samples = LatencySamples(capacity: 20_000)
    let done = DispatchSemaphore(value: 0)
    for index in 0..<21_000 {
        let elapsed = measure {
            loop.execute { _, _ in done.signal() }
            done.wait()
        }
        if index >= 1000 { samples.add(elapsed) }
    }
    loop.stop()
    report.add("## I/O loop hand-off: execute() from another thread until the job ran, 20,000 hand-offs")
    report.add("")
    report.add(samples.summary)
    report.add("")
}

// MARK: The whole bus

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .error
    return handler
}

/// What else the bus carries during a run.
struct BusVariant {
    /// Journal accepted requests and outcomes (fdatasync per batch) under `.build/`.
    var journal = false
    /// A subscriber to every outcome that never reads.
    var stalledSubscriber = false
    /// A subscriber to every outcome that reads all of them (on its own thread).
    var readingSubscriber = false
}

func busRun(
    action: String, input: String, requests: Int, inFlight: Int, workers workerCount: Int, variant: BusVariant = BusVariant()
) async throws -> (Double, LatencySamples, CoordinatorStatistics) {
    let context = try ZMQContext()
    var configuration = CoordinatorConfiguration()
    configuration.clientsEndpoint = "tcp://127.0.0.1:*"
    configuration.workersEndpoint = "tcp://127.0.0.1:*"
    configuration.outcomesEndpoint = "tcp://127.0.0.1:*"
    configuration.maxQueued = requests
    // Beside the build, not in /tmp (often tmpfs, where fdatasync costs nothing).
    let dataDirectory = FileManager.default.currentDirectoryPath + "/.build/bench-journal-\(UUID().uuidString)"
    if variant.journal { configuration.dataDirectory = dataDirectory }
    defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
    let coordinator = try Coordinator(configuration: configuration, context: context)
    var stalled: Socket?
    if variant.stalledSubscriber {
        let subscriber = try Socket(context, type: .sub)
        try subscriber.setOption(.receiveHighWaterMark, 100)
        try subscriber.setOption(.subscribe, [UInt8]())
        try subscriber.connect(coordinator.endpoints.outcomes)
        stalled = subscriber
    }
    defer { stalled?.close() }
    let reading = Locked(true)
    let reader = Thread {
        do {
            let subscriber = try Socket(context, type: .sub)
            try subscriber.setOption(.receiveTimeout, 100)
            try subscriber.setOption(.subscribe, [UInt8]())
            try subscriber.connect(coordinator.endpoints.outcomes)
            var message = Multipart()
            while reading.withLock({ $0 }) {
                try? subscriber.receive(into: &message)
            }
            subscriber.close()
        } catch {
            print("reading subscriber failed: \(error)")
        }
    }
    if variant.readingSubscriber { reader.start() }
    defer { reading.withLock { $0 = false } }
    var workers: [Worker] = []
    for index in 0..<workerCount {
        var workerConfiguration = WorkerConfiguration()
        workerConfiguration.coordinatorEndpoint = coordinator.endpoints.workers
        workerConfiguration.name = "bench-w\(index)"
        workerConfiguration.credits = 256
        workers.append(try Worker(catalog: ExampleApp.catalog, configuration: workerConfiguration, context: context))
    }
    var clientConfiguration = ActionClientConfiguration()
    clientConfiguration.coordinatorEndpoint = coordinator.endpoints.clients
    let client = try ActionClient(configuration: clientConfiguration, context: context)
    let body = Array(input.utf8)
    // Warm up: every worker registered and connected.
    for _ in 0..<200 { _ = try await client.perform(action: action, input: body) }

    let (results, sink) = AsyncStream<Duration>.makeStream()
    var sent = 0, received = 0
    var samples = LatencySamples(capacity: requests)
    func sendNext() {
        sent += 1
        let start = ContinuousClock.now
        client.perform(action: action, input: body) { result in
            if case .success(let outcome) = result, outcome.isSuccess {
                sink.yield(ContinuousClock.now - start)
            } else {
                print("request failed: \(result)")
                sink.yield(.zero)
            }
        }
    }
    let started = ContinuousClock.now
    while sent < min(inFlight, requests) { sendNext() }
    for await latency in results {
        received += 1
        samples.add(latency)
        if sent < requests { sendNext() }
        if received == requests { break }
    }
    let elapsed = ContinuousClock.now - started
    let statistics = await coordinator.statistics()
    await client.close()
    for worker in workers { await worker.stop() }
    await coordinator.stop()
    return (Double(requests) / elapsed.seconds, samples, statistics)
}

report.add("## The bus: client → coordinator → worker → back, tcp loopback, one process")
report.add("")
report.add("| workload | throughput | latency | stream overflows |")
report.add("| --- | --- | --- | --- |")
let journaled = BusVariant(journal: true)
let stalledSubscriber = BusVariant(stalledSubscriber: true)
let readingSubscriber = BusVariant(readingSubscriber: true)
for (label, action, input, requests, inFlight, workers, variant) in [
    ("Echo.say, 1 in flight, 2 workers", "Echo.say", #"{"text":"hi"}"#, 5_000, 1, 2, BusVariant()),
    ("Echo.say, 1 in flight, 2 workers, journal", "Echo.say", #"{"text":"hi"}"#, 2_000, 1, 2, journaled),
    ("Echo.say, 500 in flight, 2 workers", "Echo.say", #"{"text":"hi"}"#, 50_000, 500, 2, BusVariant()),
    ("Echo.say, 500 in flight, 2 workers, journal", "Echo.say", #"{"text":"hi"}"#, 50_000, 500, 2, journaled),
    ("Echo.say, 500 in flight, 2 workers, a subscriber reading every outcome", "Echo.say", #"{"text":"hi"}"#, 50_000, 500, 2, readingSubscriber),
    ("Echo.say, 500 in flight, 2 workers, a stalled subscriber", "Echo.say", #"{"text":"hi"}"#, 50_000, 500, 2, stalledSubscriber),
    ("Clock.sleep 5 ms, 500 in flight, 2 workers", "Clock.sleep", #"{"ms":5}"#, 20_000, 500, 2, BusVariant()),
    ("Clock.sleep 5 ms, 500 in flight, 2 workers, journal", "Clock.sleep", #"{"ms":5}"#, 20_000, 500, 2, journaled),
] {
    let (rate, samples, statistics) = try await busRun(
        action: action, input: input, requests: requests, inFlight: inFlight, workers: workers, variant: variant
    )
    report.add(String(format: "| %@ | %.0f req/s | %@ | %d |", label, rate, samples.summary, statistics.streamOverflows))
}
report.add("")
try report.write(to: outputPath)
