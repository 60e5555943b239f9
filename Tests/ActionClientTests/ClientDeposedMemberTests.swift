import ActionClient
import ActionTransport
import ActionWire
import Foundation
import Testing
import ZeroMQ

/// A client of a coordinator group leaves a member whose PONG names an older epoch than one it
/// has seen (a deposed leader that has not noticed yet), and nothing that member sends reaches
/// a caller.
@Suite("ActionClient and a deposed member", .serialized, .timeLimit(.minutes(1)))
struct ClientDeposedMemberTests {
    /// One member's side, played by hand: reads what the client sends, for at most `timeout`.
    struct Member {
        let socket: Socket

        /// Reads until `answer` returns true for a message (its routing id and decoded message).
        func serve(timeout: Duration = .seconds(20), _ answer: ([UInt8], ClientMessage) throws -> Bool) throws {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                guard let message = try? socket.receiveBusMessage(envelope: 1) else { continue }
                let routingID = Array(message.frames[0])
                guard let decoded = try? ClientMessage.decode(WireFrameList(Array(message.frames.dropFirst()))) else { continue }
                if try answer(routingID, decoded) { return }
            }
            throw TimedOut()
        }

        func reply(_ reply: ClientReply, to routingID: [UInt8]) throws {
            var frames = WireFrameList([routingID])
            reply.encode(into: &frames)
            try socket.send(Multipart(frames.frames))
        }
    }

    struct TimedOut: Error {}

    static func outcome(_ request: WireRequest, _ text: String) -> WireOutcome {
        WireOutcome(requestID: request.requestID, action: request.action, session: request.session, worker: "fake",
                    closeActionStack: false, result: .success(contentType: WireRequest.json, output: Array(#"{"text":"\#(text)"}"#.utf8)))
    }

    @Test func aMemberNamingAnOlderEpochIsLeftAndWhatItSendsIsDropped() async throws {
        let context = try ZMQContext()
        let leader = Member(socket: try Socket(context, type: .router))
        let deposed = Member(socket: try Socket(context, type: .router))
        defer {
            leader.socket.close()
            deposed.socket.close()
        }
        for member in [leader, deposed] {
            try member.socket.setOption(.receiveTimeout, 100)
            try member.socket.bind("tcp://127.0.0.1:*")
        }
        var configuration = ActionClientConfiguration()
        configuration.coordinatorEndpoint = "\(try leader.socket.lastEndpoint),\(try deposed.socket.lastEndpoint)"
        let client = try ActionClient(configuration: configuration)
        let (answers, answered) = AsyncStream.makeStream(of: Result<WireOutcome, ActionBusError>.self)
        client.perform(action: "Echo.say", input: Array(#"{"text":"x"}"#.utf8), timeout: .seconds(20)) { answered.yield($0) }

        do {
            // The leader, at epoch 5, is seen first; it sends the perform on (NOT-LEADER).
            var performed: WireRequest?
            var pinged = false
            try leader.serve { client, message in
                switch message {
                case .ping:
                    try leader.reply(.pong(instance: "leader", epoch: 5), to: client)
                    pinged = true
                case .perform(let request): performed = request
                case .performBatch(let requests): performed = requests.first
                default: break
                }
                // Once the client has both seen epoch 5 and sent the perform.
                guard pinged, performed != nil else { return false }
                try leader.reply(.notLeader(leader: nil), to: client)
                return true
            }
            let request = try #require(performed)
            // A member deposed at epoch 3 answers the PING, and sends an outcome of the request.
            try deposed.serve { client, message in
                guard message == .ping else { return false }
                try deposed.reply(.pong(instance: "old", epoch: 3), to: client)
                try deposed.reply(.outcome(Self.outcome(request, "stale")), to: client)
                return true
            }
            // Back at the leader, the perform goes again and is answered.
            try leader.serve { client, message in
                switch message {
                case .ping: try leader.reply(.pong(instance: "leader-again", epoch: 5), to: client)
                case .perform(let request):
                    try leader.reply(.outcome(Self.outcome(request, "fresh")), to: client)
                    return true
                case .performBatch(let requests):
                    try leader.reply(.outcome(Self.outcome(requests[0], "fresh")), to: client)
                    return true
                default: break
                }
                return false
            }
        } catch {
            await client.close()
            throw error
        }
        var first: Result<WireOutcome, ActionBusError>?
        for await answer in answers {
            first = answer
            break
        }
        await client.close()
        let outcome = try #require(try first?.get())
        #expect(outcome.result == .success(contentType: WireRequest.json, output: Array(#"{"text":"fresh"}"#.utf8)))
    }
}
