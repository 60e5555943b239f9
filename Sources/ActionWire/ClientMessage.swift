/// What a client sends to the coordinator's clients socket.
package enum ClientMessage: Sendable, Hashable {
    /// PERFORM: header, then the request as one packed record (``PackedRecord``).
    case perform(WireRequest)
    /// PERFORM carrying several requests, one packed record each, in submission order (what a
    /// client sends when several are ready; decoding a one-record PERFORM gives ``perform(_:)``).
    case performBatch([WireRequest])
    /// CANCEL: header, request id.
    case cancel(requestID: String)
    /// STACKS: header, query id, session filter (empty: every session).
    case stacks(queryID: String, session: String)
    /// STATS: header, query id.
    case stats(queryID: String)
    /// PING: header.
    case ping
    /// ACK: header, then one frame per request id (at most
    /// ``WireLimits/maxRequestIDsPerMessage``): the client has these outcomes, so the
    /// coordinator may stop keeping them for its resends.
    case acknowledge(requestIDs: [String])
    /// END-SESSION: header, query id, session. Closes the session's action stacks on the
    /// coordinator and on the worker hosting it; answered with STACKS-REPLY naming what closed.
    case endSession(queryID: String, session: String)
    /// FEATURES: header, query id, then a feature name and a state byte (``FeatureSwitch``) per
    /// change. Switches features on or off on every worker, now and as they join; with no
    /// change it only asks. Answered with FEATURES-REPLY.
    case features(queryID: String, changes: [String: FeatureSwitch])
    /// WORKERS: header, query id. Answered with WORKERS-REPLY.
    case workers(queryID: String)
    /// QUEUES: header, query id. Answered with QUEUES-REPLY.
    case queues(queryID: String)
    /// REPLAY: header, query id, topic prefix (as a subscriber's, ``OutcomeTopic``; empty:
    /// every outcome), the position to start from (u64). Answered with REPLAY-REPLY, one
    /// ``ReplayChunk`` of the outcomes the coordinator keeps (``OutcomeTopic``'s filters apply).
    case replay(queryID: String, prefix: [UInt8], from: UInt64)

    /// Appends the message's frames to `writer`.
    package func encode<Writer: WireFrameWriter>(into writer: inout Writer) {
        switch self {
        case .perform(let request):
            writer.append(WireHeader.bytes(.perform))
            writer.appendRecord(request)
        case .performBatch(let requests):
            writer.append(WireHeader.bytes(.perform))
            for request in requests { writer.appendRecord(request) }
        case .cancel(let requestID):
            writer.append(WireHeader.bytes(.cancel))
            writer.append(requestID)
        case .stacks(let queryID, let session):
            writer.append(WireHeader.bytes(.stacks))
            writer.append(queryID)
            writer.append(session)
        case .ping:
            writer.append(WireHeader.bytes(.ping))
        case .stats(let queryID):
            writer.append(WireHeader.bytes(.stats))
            writer.append(queryID)
        case .acknowledge(let requestIDs):
            writer.append(WireHeader.bytes(.acknowledge))
            for requestID in requestIDs { writer.append(requestID) }
        case .endSession(let queryID, let session):
            writer.append(WireHeader.bytes(.endSession))
            writer.append(queryID)
            writer.append(session)
        case .features(let queryID, let changes):
            writer.append(WireHeader.bytes(.features))
            writer.append(queryID)
            FeatureSwitch.encode(changes, into: &writer)
        case .workers(let queryID):
            writer.append(WireHeader.bytes(.workers))
            writer.append(queryID)
        case .queues(let queryID):
            writer.append(WireHeader.bytes(.queues))
            writer.append(queryID)
        case .replay(let queryID, let prefix, let from):
            writer.append(WireHeader.bytes(.replay))
            writer.append(queryID)
            writer.append(prefix)
            writer.append(from.bigEndianBytes)
        }
    }

    /// Decodes the message starting at frame `start` (after any routing envelope).
    package static func decode<Frames: WireFrames>(
        _ frames: Frames, at start: Int = 0, limits: WireLimits = WireLimits()
    ) throws(WireError) -> ClientMessage {
        guard start < frames.count else { throw WireError(.truncated, "message has no header frame") }
        let command = try WireHeader.command(in: frames.frame(at: start))
        var reader = FrameReader(frames, at: start + 1, limits: limits, command: command)
        let message: ClientMessage
        switch command {
        case .perform:
            let requests = try reader.records(WireRequest.unpack)
            message = requests.count == 1 ? .perform(requests[0]) : .performBatch(requests)
        case .cancel:
            message = .cancel(requestID: try reader.name("request id"))
        case .stacks:
            message = .stacks(queryID: try reader.name("query id"), session: try reader.name("session", allowEmpty: true))
        case .ping:
            message = .ping
        case .stats:
            message = .stats(queryID: try reader.name("query id"))
        case .acknowledge:
            message = .acknowledge(requestIDs: try reader.requestIDs())
        case .endSession:
            message = .endSession(queryID: try reader.name("query id"), session: try reader.name("session"))
        case .features:
            message = .features(queryID: try reader.name("query id"), changes: try reader.featureSwitches(allowCleared: true))
        case .workers:
            message = .workers(queryID: try reader.name("query id"))
        case .queues:
            message = .queues(queryID: try reader.name("query id"))
        case .replay:
            let queryID = try reader.name("query id")
            let prefix = try reader.next("topic prefix")
            guard prefix.count <= OutcomeTopic.maxPrefixBytes else {
                throw WireError(.oversize, "REPLAY topic prefix has \(prefix.count) bytes, limit \(OutcomeTopic.maxPrefixBytes)")
            }
            let from = try reader.fixed("position", size: 8).bigEndianInteger(at: 0, as: UInt64.self)
            message = .replay(queryID: queryID, prefix: Array(prefix), from: from)
        default:
            throw WireError(.unknownCommand, "\(command) is not a client command")
        }
        try reader.end()
        return message
    }
}
