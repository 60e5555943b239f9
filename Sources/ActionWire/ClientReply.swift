/// What the coordinator sends back to a client.
package enum ClientReply: Sendable, Hashable {
    /// ACCEPTED: header, then one frame per request id (at most
    /// ``WireLimits/maxRequestIDsPerMessage``): the coordinator accepts many requests of one
    /// client in one message.
    case accepted(requestIDs: [String])
    /// OUTCOME: header, then the outcome as one packed record (``PackedRecord``).
    case outcome(WireOutcome)
    /// OUTCOME carrying several outcomes for one client, one packed record each (decoding a
    /// one-record OUTCOME gives ``outcome(_:)``).
    case outcomeBatch([WireOutcome])
    /// STACKS-REPLY: header, query id, JSON report.
    case stacks(queryID: String, json: [UInt8])
    /// PONG: header, the coordinator's instance id (new each time a coordinator process starts,
    /// so a client can tell that the coordinator it talks to restarted), then its epoch (u64: a
    /// group leader's term, 0 outside a group; a PONG without it is of epoch 0). A client in a
    /// group refuses a member whose epoch is older than one it has seen: a deposed leader.
    case pong(instance: String, epoch: UInt64)
    /// STATS-REPLY: header, query id, the counters as a JSON object.
    case stats(queryID: String, json: [UInt8])
    /// FEATURES-REPLY: header, query id, the features the fleet serves and their switches as a
    /// JSON object.
    case features(queryID: String, json: [UInt8])
    /// WORKERS-REPLY: header, query id, the registered workers as a JSON object.
    case workers(queryID: String, json: [UInt8])
    /// QUEUES-REPLY: header, query id, what waits and runs as a JSON object.
    case queues(queryID: String, json: [UInt8])
    /// REPLAY-REPLY: header, query id, one ``ReplayChunk`` encoded as a single frame.
    case replayed(queryID: String, chunk: [UInt8])
    /// ERROR: header, request id (empty when unknown), error code, message.
    case error(requestID: String, code: String, message: String)
    /// NOT-LEADER: header, then, when the member knows it, the leader's clients endpoint (as
    /// the leader published it). A member of a coordinator group that does not lead now answers
    /// whatever it is sent with this; nothing sent to it was kept.
    case notLeader(leader: String?)

    /// Appends the message's frames to `writer`.
    package func encode<Writer: WireFrameWriter>(into writer: inout Writer) {
        switch self {
        case .accepted(let requestIDs):
            writer.append(WireHeader.bytes(.accepted))
            for requestID in requestIDs { writer.append(requestID) }
        case .outcome(let outcome):
            writer.append(WireHeader.bytes(.outcome))
            writer.appendRecord(outcome)
        case .outcomeBatch(let outcomes):
            writer.append(WireHeader.bytes(.outcome))
            for outcome in outcomes { writer.appendRecord(outcome) }
        case .stacks(let queryID, let json):
            writer.append(WireHeader.bytes(.stacksReply))
            writer.append(queryID)
            writer.append(json)
        case .pong(let instance, let epoch):
            writer.append(WireHeader.bytes(.pong))
            writer.append(instance)
            writer.append(epoch.bigEndianBytes)
        case .stats(let queryID, let json):
            writer.append(WireHeader.bytes(.statsReply))
            writer.append(queryID)
            writer.append(json)
        case .features(let queryID, let json):
            writer.append(WireHeader.bytes(.featuresReply))
            writer.append(queryID)
            writer.append(json)
        case .workers(let queryID, let json):
            writer.append(WireHeader.bytes(.workersReply))
            writer.append(queryID)
            writer.append(json)
        case .queues(let queryID, let json):
            writer.append(WireHeader.bytes(.queuesReply))
            writer.append(queryID)
            writer.append(json)
        case .replayed(let queryID, let chunk):
            writer.append(WireHeader.bytes(.replayReply))
            writer.append(queryID)
            writer.append(chunk)
        case .error(let requestID, let code, let message):
            writer.append(WireHeader.bytes(.error))
            writer.append(requestID)
            writer.append(code)
            writer.append(message)
        case .notLeader(let leader):
            writer.append(WireHeader.bytes(.notLeader))
            if let leader { writer.append(leader) }
        }
    }

    /// ACCEPTED for one request.
    package static func accepted(requestID: String) -> ClientReply { .accepted(requestIDs: [requestID]) }

    /// Decodes the message starting at frame `start`.
    package static func decode<Frames: WireFrames>(
        _ frames: Frames, at start: Int = 0, limits: WireLimits = WireLimits()
    ) throws(WireError) -> ClientReply {
        guard start < frames.count else { throw WireError(.truncated, "message has no header frame") }
        let command = try WireHeader.command(in: frames.frame(at: start))
        var reader = FrameReader(frames, at: start + 1, limits: limits, command: command)
        let reply: ClientReply
        switch command {
        case .accepted:
            reply = .accepted(requestIDs: try reader.requestIDs())
        case .outcome:
            let outcomes = try reader.records(WireOutcome.unpack)
            reply = outcomes.count == 1 ? .outcome(outcomes[0]) : .outcomeBatch(outcomes)
        case .stacksReply:
            reply = .stacks(queryID: try reader.name("query id"), json: Array(try reader.body("report")))
        case .pong:
            reply = .pong(instance: try reader.name("instance"), epoch: reader.remaining > 0 ? try reader.uint64("epoch") : 0)
        case .statsReply:
            reply = .stats(queryID: try reader.name("query id"), json: Array(try reader.body("counters")))
        case .featuresReply:
            reply = .features(queryID: try reader.name("query id"), json: Array(try reader.body("report")))
        case .workersReply:
            reply = .workers(queryID: try reader.name("query id"), json: Array(try reader.body("report")))
        case .queuesReply:
            reply = .queues(queryID: try reader.name("query id"), json: Array(try reader.body("report")))
        case .replayReply:
            reply = .replayed(queryID: try reader.name("query id"), chunk: Array(try reader.body("chunk")))
        case .error:
            reply = .error(
                requestID: try reader.name("request id", allowEmpty: true),
                code: try reader.name("error code"),
                message: try reader.text("error message")
            )
        case .notLeader:
            reply = .notLeader(leader: reader.remaining > 0 ? try reader.name("leader endpoint") : nil)
        default:
            throw WireError(.unknownCommand, "\(command) is not a coordinator reply")
        }
        try reader.end()
        return reply
    }
}
