import ActionClient
import ActionTransport
import ActionWire
import Foundation
import Testing
import ZeroMQ

/// A client reads each outcome of an OUTCOME message on its own: one record that does not
/// decode is dropped (and logged), and the outcomes beside it still reach their callers.
@Suite("ActionClient and a malformed outcome", .serialized, .timeLimit(.minutes(1)))
struct ClientMalformedOutcomeTests {
    @Test func aMalformedOutcomeRecordCostsOnlyItself() async throws {
        let context = try ZMQContext()
        let coordinator = try Socket(context, type: .router)
        defer { coordinator.close() }
        try coordinator.setOption(.receiveTimeout, 10_000)
        try coordinator.bind("tcp://127.0.0.1:*")
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = try coordinator.lastEndpoint
        let client = try ActionClient(configuration: configuration)

        // The client is closed whatever happens: its I/O thread must not outlive the test.
        let outcomes: [WireOutcome]
        let requests: [WireRequest]
        do {
            (outcomes, requests) = try await exchange(client: client, coordinator: coordinator)
        } catch {
            await client.close()
            throw error
        }
        await client.close()
        #expect(Set(outcomes.map(\.requestID)) == Set(requests.map(\.requestID)))
        #expect(outcomes.allSatisfy { $0.isSuccess })
    }

    /// Two performs, answered by playing the coordinator: their outcomes, and the requests it read.
    ///
    /// The performs are handed to the client before the test blocks on the coordinator's socket:
    /// two `async let` performs waited for a cooperative thread to start, and with parallel tests
    /// blocking the others the receive timed out before either was submitted.
    private func exchange(client: ActionClient, coordinator: Socket) async throws -> ([WireOutcome], [WireRequest]) {
        let input = Array(#"{"text":"x"}"#.utf8)
        let (answers, answered) = AsyncStream.makeStream(of: Result<WireOutcome, ActionBusError>.self)
        for _ in 0..<2 {
            client.perform(action: "Echo.say", input: input, timeout: .seconds(20)) { answered.yield($0) }
        }

        // Play the coordinator: read PERFORMs (and whatever else comes) until both requests are in.
        var routingID: [UInt8] = []
        var requests: [WireRequest] = []
        while requests.count < 2 {
            let message = try coordinator.receiveBusMessage(envelope: 1)
            routingID = Array(message.frames[0])
            switch try ClientMessage.decode(WireFrameList(Array(message.frames.dropFirst()))) {
            case .perform(let request): requests.append(request)
            case .performBatch(let batch): requests += batch
            default: continue
            }
        }
        func outcome(_ request: WireRequest) -> WireOutcome {
            WireOutcome(requestID: request.requestID, action: request.action, session: "", worker: "fake",
                        closeActionStack: false, result: .success(contentType: WireRequest.json, output: request.input))
        }
        // One OUTCOME: a good record, a record cut short, a good record.
        var reply = WireFrameList([routingID, WireHeader.bytes(.outcome)])
        reply.appendRecord(outcome(requests[0]))
        reply.append(Array(outcome(requests[1]).packed.prefix(9)))
        reply.appendRecord(outcome(requests[1]))
        try coordinator.send(Multipart(reply.frames))

        var outcomes: [WireOutcome] = []
        for await answer in answers {
            outcomes.append(try answer.get())
            if outcomes.count == 2 { break }
        }
        return (outcomes, requests)
    }
}
