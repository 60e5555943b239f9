import ActionClient
import ActionCore
import Foundation
import GreetingFeatures
import Synchronization

// A Swift program that uses an ActionBus: it subscribes to the outcome stream of its session,
// performs the Greeting feature's actions (typed, with the types the worker runs, and once by
// name with JSON), checks each outcome, then finds every one of them on the stream.
//
//     swift build --package-path Examples/ClientApp
//     Examples/ClientApp/.build/debug/client-app [clients-endpoint] [outcomes-endpoint]
//
// The endpoints default to tcp://127.0.0.1:5555 and tcp://127.0.0.1:5557 (`actionbus
// coordinator`'s defaults); a worker serving Greeting must be registered (`custom-worker`,
// Examples/CustomWorker). It exits 0 when every outcome was right and appeared on the stream,
// 1 when one was not (or the run took longer than 30 seconds), 2 on a usage error.

let usage = "usage: client-app [clients-endpoint (tcp://127.0.0.1:5555)] [outcomes-endpoint (tcp://127.0.0.1:5557)]"
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") {
    say(usage)
    exit(0)
}
if arguments.count > 2 || arguments.contains(where: { $0.hasPrefix("-") }) {
    fail(usage, status: 2)
}

var configuration = ActionClientConfiguration()
if arguments.count > 0 { configuration.coordinatorEndpoint = arguments[0] }
if arguments.count > 1 { configuration.outcomesEndpoint = arguments[1] }
// A perform that names no timeout fails after this (plus a short grace for the coordinator's
// own answer), well within the run's deadline.
configuration.defaultTimeout = .seconds(8)

// The whole run is bounded: whatever hangs, the program says where and exits 1.
let runDeadline = Duration.seconds(30)
let stage = Stage()
Task.detached {
    try? await Task.sleep(for: runDeadline)
    fail("FAILED: the run's deadline of \(runDeadline) passed while \(stage.name)")
}

// A session of its own, so the stream carries this run's outcomes and nothing else.
let session = "client-app-\(UUID().uuidString.prefix(8).lowercased())"
say("client-app: clients \(configuration.coordinatorEndpoint), outcomes \(configuration.outcomesEndpoint), session \(session)")

let client: ActionClient
do {
    client = try ActionClient(configuration: configuration)
} catch {
    fail("FAILED: could not make a client: \(error)")
}

// (a) Subscribe first: the call returns once the coordinator confirmed the subscription, so
// every outcome of the performs below is on the stream.
stage.enter("subscribing to \(configuration.outcomesEndpoint)")
let stream: AsyncStream<StreamedOutcome>
do {
    stream = try await client.outcomes(session: session)
} catch {
    fail("FAILED: could not subscribe to the outcome stream: \(error)")
}
say("subscribed to the outcomes of session \(session)")

// (b) Perform, await each outcome and check it.
var report = Report()

stage.enter("performing Greeting.hello for Ada (typed, async)")
do {
    let output = try await client.perform(GreetingFeature.hello, HelloAction.Input(name: "Ada"), session: session)
    report.check("typed, async", input: "Ada", expected: .greeting("Hello, Ada!"), got: .greeting(output.greeting))
} catch {
    report.check("typed, async", input: "Ada", expected: .greeting("Hello, Ada!"), got: Observed(error))
}

// The callback form: the completion runs on the queue given (Flint's completion queue).
stage.enter("performing Greeting.hello for Grace (typed, callback)")
let graceOutcome: ActionOutcome<HelloAction.Output> = await withCheckedContinuation { continuation in
    client.perform(GreetingFeature.hello, HelloAction.Input(name: "Grace"), session: session, completionQueue: .global()) { outcome in
        continuation.resume(returning: outcome)
    }
}
switch graceOutcome {
case .success(let output, _):
    report.check("typed, callback", input: "Grace", expected: .greeting("Hello, Grace!"), got: .greeting(output.greeting))
case .failure(let error, _):
    report.check("typed, callback", input: "Grace", expected: .greeting("Hello, Grace!"), got: .failure(code: error.code.rawValue))
}

// A failure is an outcome too: the action's ActionError, with its code, thrown by the typed form.
stage.enter("performing Greeting.hello with an empty name (typed, failure)")
do {
    let output = try await client.perform(GreetingFeature.hello, HelloAction.Input(name: ""), session: session)
    report.check("typed, failure", input: "", expected: .failure(code: "invalidInput"), got: .greeting(output.greeting))
} catch {
    report.check("typed, failure", input: "", expected: .failure(code: "invalidInput"), got: Observed(error))
}

// By name with JSON, as a program that does not link the feature's types would.
stage.enter("performing Greeting.hello for Barbara (by name, JSON)")
var byNameRequestID: String?
do {
    let outcome = try await client.perform(action: "Greeting.hello", input: Array(#"{"name":"Barbara"}"#.utf8), session: session)
    byNameRequestID = outcome.requestID
    switch outcome.result {
    case .success(_, let output):
        let object = (try? JSONSerialization.jsonObject(with: Data(output))) as? [String: Any]
        let greeting = object?["greeting"] as? String
        report.check("by name, JSON", input: "Barbara", expected: .greeting("Hello, Barbara!"),
                     got: greeting.map { .greeting($0) } ?? .error("output \(String(decoding: output, as: UTF8.self))"))
    case .failure(let code, _):
        report.check("by name, JSON", input: "Barbara", expected: .greeting("Hello, Barbara!"), got: .failure(code: code))
    }
} catch {
    report.check("by name, JSON", input: "Barbara", expected: .greeting("Hello, Barbara!"), got: .error("\(error)"))
}

// (c) Read the stream until it has carried as many outcomes as were performed (or 5 seconds
// pass), then find each perform's outcome on it.
stage.enter("reading the outcome stream")
let expectedCount = report.performs.count
let reading = Task {
    var seen: [StreamedOutcome] = []
    for await event in stream {
        seen.append(event)
        if seen.count == expectedCount { break }
    }
    return seen
}
let giveUp = Task {
    try? await Task.sleep(for: .seconds(5))
    reading.cancel()    // ends the iteration: the stream finishes for a cancelled reader
}
let streamed = await reading.value
giveUp.cancel()
report.match(streamed, session: session, byNameRequestID: byNameRequestID)

// Flint's session end, across the bus: the coordinator and the worker close its action stacks.
stage.enter("ending the session")
do {
    let closed = try await client.endSession(session)
    let entries = closed.stacks.map { "\($0.featureName): \($0.entries.count) entries" }
    say("ended session \(session): closed \(closed.stacks.count) action stack(s) \(entries)")
} catch {
    report.problems.append("ending the session failed: \(error)")
}
await client.close()

// (d) The report.
if report.problems.isEmpty {
    say("OK: \(expectedCount) outcomes right, each on the outcome stream")
    exit(0)
}
for problem in report.problems {
    printError("problem: \(problem)")
}
fail("FAILED: \(report.problems.count) problem(s)")

// MARK: - Checks

/// What an outcome was, or should be.
enum Observed: Equatable, CustomStringConvertible {
    /// The action succeeded with this greeting.
    case greeting(String)
    /// The action failed with this code.
    case failure(code: String)
    /// No outcome arrived: the bus failed, or the output did not read.
    case error(String)

    /// What a typed perform threw: the action's failure (an `ActionError`, with its code), or
    /// the bus's (an `ActionBusError`: no outcome arrived).
    init(_ error: any Error) {
        if let error = error as? ActionError {
            self = .failure(code: error.code.rawValue)
        } else {
            self = .error("\(error)")
        }
    }

    var description: String {
        switch self {
        case .greeting(let greeting): "\"\(greeting)\""
        case .failure(let code): "failure \(code)"
        case .error(let message): "error \(message)"
        }
    }
}

/// The performs, what each should have been, and what went wrong.
struct Report {
    struct Perform {
        let how: String
        let input: String
        let expected: Observed
    }

    private(set) var performs: [Perform] = []
    var problems: [String] = []

    /// Records a perform's outcome against what it should be, and prints the line.
    mutating func check(_ how: String, input: String, expected: Observed, got: Observed) {
        performs.append(Perform(how: how, input: input, expected: expected))
        let ok = got == expected
        say("\(ok ? "ok  " : "FAIL") Greeting.hello {\"name\":\"\(input)\"} -> \(got) (\(how))")
        if !ok { problems.append("\(how): Greeting.hello for '\(input)' returned \(got), expected \(expected)") }
    }

    /// Finds each perform's outcome on the stream, and checks the stream's sequence numbers.
    mutating func match(_ streamed: [StreamedOutcome], session: String, byNameRequestID: String?) {
        var unmatched = streamed
        for perform in performs {
            let index = unmatched.firstIndex { event in
                let outcome = event.outcome
                guard outcome.action == GreetingFeature.hello.fullName, outcome.session == session else { return false }
                if perform.how == "by name, JSON", let byNameRequestID, outcome.requestID != byNameRequestID { return false }
                switch outcome.result {
                case .success(_, let output):
                    let decoded = try? JSONDecoder().decode(HelloAction.Output.self, from: Data(output))
                    return decoded.map { .greeting($0.greeting) } == perform.expected
                case .failure(let code, _):
                    return .failure(code: code) == perform.expected
                }
            }
            if let index {
                let event = unmatched.remove(at: index)
                say("ok   on the stream: #\(event.sequence) \(event.outcome.action) \(perform.expected) from worker \(event.outcome.worker) (\(perform.how))")
            } else {
                say("FAIL not on the stream: \(perform.expected) (\(perform.how))")
                problems.append("the outcome of '\(perform.how)' (\(perform.expected)) did not appear on the outcome stream")
            }
        }
        for event in unmatched {
            let result = switch event.outcome.result {
            case .success(_, let output): String(decoding: output, as: UTF8.self)
            case .failure(let code, let message): "failure \(code): \(message)"
            }
            problems.append("an unexpected outcome on the stream: #\(event.sequence) \(event.outcome.action) \(result)")
        }
        let sequences = streamed.map(\.sequence)
        if let first = sequences.first, sequences != Array(first..<first + UInt64(sequences.count)) {
            problems.append("the stream's sequence numbers have a gap: \(sequences)")
        }
        if streamed.contains(where: { $0.missed > 0 || $0.coordinatorRestarted }) {
            problems.append("the stream reports missed outcomes or a coordinator restart")
        }
        say("stream: \(streamed.count) outcome(s) of session \(session), sequences \(sequences)")
    }
}

/// What the run is doing, for the deadline's message.
final class Stage: Sendable {
    private let current = Mutex("starting")

    func enter(_ name: String) { current.withLock { $0 = name } }
    var name: String { current.withLock { $0 } }
}

/// Writes a line to standard output at once (`print` buffers it when the output is a pipe, as
/// in CI, where it would then come after standard error's lines).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Prints `message` to standard error and exits with `status`.
func fail(_ message: String, status: Int32 = 1) -> Never {
    printError("client-app: \(message)")
    exit(status)
}
