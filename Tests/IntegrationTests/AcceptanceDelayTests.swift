import ActionBusTestSupport
import ActionTransport
import ActionWire
import Foundation
import Testing
import ZeroMQ

/// ACCEPTED waits out the coordinator's acceptance delay and goes only for requests that still
/// have no outcome then: an OUTCOME says the request was accepted too.
@Suite("Deferred acceptances", .serialized, .timeLimit(.minutes(2)))
struct AcceptanceDelayTests {
    /// A DEALER speaking ABP to the coordinator, reading with a bounded wait.
    private struct RawClient {
        let context: ZMQContext
        let socket: Socket

        init(_ bus: BusFixture, name: String) throws {
            context = try ZMQContext()
            socket = try Socket(context, type: .dealer)
            try socket.setOption(.routingID, Array(name.utf8))
            try socket.setOption(.receiveTimeout, 200)
            try socket.connect(bus.clients)
        }

        func perform(_ requestID: String, _ action: String = "Echo.say", input: String = #"{"text":"a"}"#) throws {
            var frames = WireFrameList()
            ClientMessage.perform(WireRequest(
                requestID: requestID, action: action, timeoutMilliseconds: 60_000, input: Array(input.utf8)
            )).encode(into: &frames)
            try socket.send(Multipart(frames.frames))
        }

        /// The next reply, or `nil` when none comes within `timeout`.
        func reply(within timeout: Duration) throws -> ClientReply? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                // Times out (EAGAIN) every 200 ms: the deadline bounds the whole wait.
                guard let message = try? socket.receiveBusMessage() else { continue }
                return try ClientReply.decode(WireFrameList(message.frames))
            }
            return nil
        }

        func close() { socket.close() }
    }

    @Test func aRequestAnsweredWithinTheDelayGetsItsOutcomeAndNoAccepted() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--no-journal", "--acceptance-delay-ms", "5000"])
        try bus.startWorker("w1", coordinator: coordinator)
        let client = try RawClient(bus, name: "quick-client")
        defer { client.close() }

        try client.perform("quick-client:1")
        let first = try #require(try client.reply(within: .seconds(30)), "no reply came")
        guard case .outcome(let outcome) = first else {
            Issue.record("the first reply is not the OUTCOME: \(first)")
            return
        }
        #expect(outcome.requestID == "quick-client:1")
        // Past the 5 s delay plus two ticks: the ACCEPTED it no longer needs never comes.
        let later = try client.reply(within: .seconds(6))
        #expect(later == nil, "a reply came after the outcome: \(String(describing: later))")
    }

    @Test func aRequestStillWaitingWhenTheDelayEndsIsAcceptedThenAnswered() throws {
        let bus = try BusFixture()
        // No worker yet: the request waits for one.
        let coordinator = try bus.startCoordinator(["--no-journal", "--no-worker-grace", "60"])
        let client = try RawClient(bus, name: "waiting-client")
        defer { client.close() }

        try client.perform("waiting-client:1")
        let first = try #require(try client.reply(within: .seconds(10)), "no ACCEPTED came")
        #expect(first == .accepted(requestIDs: ["waiting-client:1"]))

        try bus.startWorker("w1", coordinator: coordinator)
        let second = try #require(try client.reply(within: .seconds(30)), "no OUTCOME came")
        guard case .outcome(let outcome) = second else {
            Issue.record("the reply after ACCEPTED is not the OUTCOME: \(second)")
            return
        }
        #expect(outcome.requestID == "waiting-client:1")
    }

    @Test func noDelayAcceptsEveryRequestBeforeItsOutcome() throws {
        let bus = try BusFixture()
        let coordinator = try bus.startCoordinator(["--acceptance-delay-ms", "0"])
        try bus.startWorker("w1", coordinator: coordinator)
        let client = try RawClient(bus, name: "eager-client")
        defer { client.close() }

        try client.perform("eager-client:1")
        let first = try #require(try client.reply(within: .seconds(30)), "no reply came")
        #expect(first == .accepted(requestIDs: ["eager-client:1"]))
        let second = try #require(try client.reply(within: .seconds(30)), "no OUTCOME came")
        guard case .outcome(let outcome) = second else {
            Issue.record("the reply after ACCEPTED is not the OUTCOME: \(second)")
            return
        }
        #expect(outcome.requestID == "eager-client:1")
    }
}
