/// What a worker announces when it registers.
package struct WorkerRegistration: Sendable, Hashable {
    /// The worker's name, shown in outcomes (host and pid by default).
    package var name: String
    /// How many requests it runs at once.
    package var credits: UInt32
    /// The full names of the actions it serves.
    package var actions: [String]
    /// The requests it is running now (started for an earlier coordinator, or before this
    /// registration): a coordinator that holds one of them unfinished and not yet sent out
    /// again adopts it as running there instead of running it a second time.
    package var running: [String]

    /// Creates a registration.
    package init(name: String, credits: UInt32, actions: [String], running: [String] = []) {
        self.name = name
        self.credits = credits
        self.actions = actions
        self.running = running
    }
}

/// What a worker sends to the coordinator's workers socket.
package enum WorkerMessage: Sendable, Hashable {
    /// READY: header, name, credits (u32), one frame per action name, then, when it runs
    /// requests, an empty frame and one frame per running request's id.
    case ready(WorkerRegistration)
    /// RESULT: header, then the outcome as one packed record (``PackedRecord``); returns one
    /// credit.
    case result(WireOutcome)
    /// RESULT carrying several outcomes, one packed record each; returns one credit per
    /// outcome (decoding a one-record RESULT gives ``result(_:)``).
    case resultBatch([WireOutcome])
    /// HEARTBEAT: header.
    case heartbeat
    /// HEARTBEAT with a mark: header, mark (u64, counting up). The coordinator answers it with
    /// ``WorkerInstruction/resultsTaken(mark:)`` once everything it read from the worker before
    /// it is durable, so the worker may let go of the results it kept to send again.
    case markedHeartbeat(mark: UInt64)
    /// DISCONNECT: header.
    case disconnect
    /// DRAINING: header. No new requests; results of held ones still come, then DISCONNECT.
    case draining
    /// BEGAN: header, then one packed record per request that started running (its worker
    /// field empty), sent only while the coordinator asks for them (REPORTING).
    case began([BeganEvent])
    /// CATALOG: header, then the worker's ``WorkerCatalog`` as JSON (a body). Sent after each
    /// WELCOME, when it fits the coordinator's limit.
    case catalog(json: [UInt8])
    /// RESENT: header, then packed outcome records, as in RESULT: outcomes this worker sent
    /// lately, sent again after each WELCOME, since the coordinator before may have lost them
    /// (a group's former leader, or this one before a restart). Returns no credit. One without
    /// records ends them: the worker has sent all it kept.
    case resent([WireOutcome])

    /// Appends the message's frames to `writer`.
    package func encode<Writer: WireFrameWriter>(into writer: inout Writer) {
        switch self {
        case .ready(let registration):
            writer.append(WireHeader.bytes(.ready))
            writer.append(registration.name)
            writer.append(registration.credits.bigEndianBytes)
            for action in registration.actions { writer.append(action) }
            if !registration.running.isEmpty {
                writer.appendEmpty()
                for requestID in registration.running { writer.append(requestID) }
            }
        case .result(let outcome):
            writer.append(WireHeader.bytes(.result))
            writer.appendRecord(outcome)
        case .resultBatch(let outcomes):
            writer.append(WireHeader.bytes(.result))
            for outcome in outcomes { writer.appendRecord(outcome) }
        case .heartbeat:
            writer.append(WireHeader.bytes(.workerHeartbeat))
        case .markedHeartbeat(let mark):
            writer.append(WireHeader.bytes(.workerHeartbeat))
            writer.append(mark.bigEndianBytes)
        case .disconnect:
            writer.append(WireHeader.bytes(.workerDisconnect))
        case .draining:
            writer.append(WireHeader.bytes(.workerDraining))
        case .began(let events):
            writer.append(WireHeader.bytes(.began))
            for event in events { writer.append(event.packed) }
        case .catalog(let json):
            writer.append(WireHeader.bytes(.catalog))
            writer.append(json)
        case .resent(let outcomes):
            writer.append(WireHeader.bytes(.resent))
            for outcome in outcomes { writer.appendRecord(outcome) }
        }
    }

    /// Decodes the message starting at frame `start` (after the routing id).
    package static func decode<Frames: WireFrames>(
        _ frames: Frames, at start: Int = 0, limits: WireLimits = WireLimits()
    ) throws(WireError) -> WorkerMessage {
        guard start < frames.count else { throw WireError(.truncated, "message has no header frame") }
        let command = try WireHeader.command(in: frames.frame(at: start))
        var reader = FrameReader(frames, at: start + 1, limits: limits, command: command)
        let message: WorkerMessage
        switch command {
        case .ready:
            let name = try reader.name("worker name")
            let credits = try reader.uint32("credits")
            guard credits > 0 else { throw WireError(.invalidField, "READY offers 0 credits") }
            var actions: [String] = [], running: [String] = []
            actions.reserveCapacity(reader.remaining)
            while reader.remaining > 0 {
                let frame = try reader.next("action")
                // An empty frame (no action's name) ends the actions: the running requests follow.
                if frame.isEmpty {
                    running = try reader.requestIDs()
                    break
                }
                guard actions.count < limits.maxActionsPerWorker else {
                    throw WireError(.oversize, "READY lists more than \(limits.maxActionsPerWorker) actions")
                }
                actions.append(try WireName.validate(frame, field: "READY action", limits: limits))
            }
            message = .ready(WorkerRegistration(name: name, credits: credits, actions: actions, running: running))
        case .result:
            let outcomes = try reader.records(WireOutcome.unpack)
            message = outcomes.count == 1 ? .result(outcomes[0]) : .resultBatch(outcomes)
        case .workerHeartbeat:
            message = reader.remaining > 0 ? .markedHeartbeat(mark: try reader.uint64("mark")) : .heartbeat
        case .workerDisconnect:
            message = .disconnect
        case .workerDraining:
            message = .draining
        case .began:
            message = .began(try reader.records(BeganEvent.unpack))
        case .catalog:
            message = .catalog(json: Array(try reader.body("catalog")))
        case .resent:
            message = .resent(reader.remaining == 0 ? [] : try reader.records(WireOutcome.unpack))
        default:
            throw WireError(.unknownCommand, "\(command) is not a worker command")
        }
        try reader.end()
        return message
    }
}

/// What the coordinator sends to a worker.
package enum WorkerInstruction: Sendable, Hashable {
    /// REQUEST: header, then the request as one packed record (``PackedRecord``; its timeout
    /// is the time left).
    case request(WireRequest)
    /// REQUEST carrying several requests, one packed record each, in the order they are to
    /// start (decoding a one-record REQUEST gives ``request(_:)``).
    case requestBatch([WireRequest])
    /// REQUEST of one request already packed (the coordinator's own): the same message as
    /// ``request(_:)``, which is what it decodes as.
    case packedRequest(PackedRequest)
    /// REQUEST carrying requests already packed: the same message as ``requestBatch(_:)``,
    /// which is what it decodes as.
    case packedRequests([PackedRequest])
    /// HEARTBEAT: header.
    case heartbeat
    /// HEARTBEAT naming a worker's mark: header, mark (u64). Everything the worker sent before
    /// its HEARTBEAT with that mark (``WorkerMessage/markedHeartbeat(mark:)``) is durable here
    /// (journaled, and on every in-sync standby): the results among it need not be sent again.
    case resultsTaken(mark: UInt64)
    /// DISCONNECT: header. The coordinator does not know this worker; it must send READY again.
    case disconnect
    /// CANCEL: header, request id. The client cancelled the request; its result will be discarded.
    case cancel(requestID: String)
    /// WELCOME: header, max message bytes (u32), heartbeat interval in ms (u32), liveness (u32).
    /// The answer to every READY: a worker keeps its results within the coordinator's limit and
    /// heartbeats as the coordinator expects, whatever it was configured with.
    case welcome(WorkerTerms)
    /// END-SESSION: header, session. A client ended the session: the worker closes its action
    /// stacks there.
    case endSession(String)
    /// SWITCHES: header, then a feature name and a state byte (0 off, 1 on) per feature the
    /// fleet switched. The whole set, sent after every WELCOME and whenever it changes: a
    /// feature not named has no fleet-wide switch.
    case switches([String: FeatureSwitch])
    /// REPORTING: header, flags (one byte; bit 0 = send BEGAN). Sent after every WELCOME and
    /// whenever what the stream's subscribers want changes.
    case reporting(began: Bool)
    /// NOT-LEADER: header, then, when the member knows it, the leader's workers endpoint (as
    /// the leader published it). A member of a coordinator group that does not lead now
    /// answers READY and every other message with this; the worker tries that member, or the
    /// next.
    case notLeader(leader: String?)

    /// Appends the message's frames to `writer`.
    package func encode<Writer: WireFrameWriter>(into writer: inout Writer) {
        switch self {
        case .request(let request):
            writer.append(WireHeader.bytes(.request))
            writer.appendRecord(request)
        case .requestBatch(let requests):
            writer.append(WireHeader.bytes(.request))
            for request in requests { writer.appendRecord(request) }
        case .packedRequest(let request):
            writer.append(WireHeader.bytes(.request))
            writer.append(request.record)
        case .packedRequests(let requests):
            writer.append(WireHeader.bytes(.request))
            for request in requests { writer.append(request.record) }
        case .heartbeat:
            writer.append(WireHeader.bytes(.coordinatorHeartbeat))
        case .resultsTaken(let mark):
            writer.append(WireHeader.bytes(.coordinatorHeartbeat))
            writer.append(mark.bigEndianBytes)
        case .disconnect:
            writer.append(WireHeader.bytes(.coordinatorDisconnect))
        case .cancel(let requestID):
            writer.append(WireHeader.bytes(.cancelRequest))
            writer.append(requestID)
        case .welcome(let terms):
            writer.append(WireHeader.bytes(.welcome))
            writer.append(terms.maxMessageBytes.bigEndianBytes)
            writer.append(terms.heartbeatMilliseconds.bigEndianBytes)
            writer.append(terms.heartbeatLiveness.bigEndianBytes)
            writer.append(terms.epoch.bigEndianBytes)
        case .endSession(let session):
            writer.append(WireHeader.bytes(.workerEndSession))
            writer.append(session)
        case .switches(let switches):
            writer.append(WireHeader.bytes(.switches))
            FeatureSwitch.encode(switches, into: &writer)
        case .reporting(let began):
            writer.append(WireHeader.bytes(.reporting))
            writer.append(CollectionOfOne(began ? 1 : 0))
        case .notLeader(let leader):
            writer.append(WireHeader.bytes(.workerNotLeader))
            if let leader { writer.append(leader) }
        }
    }

    /// Decodes the message starting at frame `start`.
    package static func decode<Frames: WireFrames>(
        _ frames: Frames, at start: Int = 0, limits: WireLimits = WireLimits()
    ) throws(WireError) -> WorkerInstruction {
        guard start < frames.count else { throw WireError(.truncated, "message has no header frame") }
        let command = try WireHeader.command(in: frames.frame(at: start))
        var reader = FrameReader(frames, at: start + 1, limits: limits, command: command)
        let instruction: WorkerInstruction
        switch command {
        case .request:
            let requests = try reader.records(WireRequest.unpack)
            instruction = requests.count == 1 ? .request(requests[0]) : .requestBatch(requests)
        case .coordinatorHeartbeat:
            instruction = reader.remaining > 0 ? .resultsTaken(mark: try reader.uint64("mark")) : .heartbeat
        case .coordinatorDisconnect: instruction = .disconnect
        case .cancelRequest: instruction = .cancel(requestID: try reader.name("request id"))
        case .welcome:
            let terms = WorkerTerms(
                maxMessageBytes: try reader.uint32("max message bytes"),
                heartbeatMilliseconds: try reader.uint32("heartbeat interval"),
                heartbeatLiveness: try reader.uint32("heartbeat liveness"),
                epoch: reader.remaining > 0 ? try reader.uint64("epoch") : 0
            )
            guard terms.maxMessageBytes > 0, terms.heartbeatMilliseconds > 0, terms.heartbeatLiveness > 0 else {
                throw WireError(.invalidField, "WELCOME terms must be positive")
            }
            instruction = .welcome(terms)
        case .workerEndSession: instruction = .endSession(try reader.name("session"))
        case .switches: instruction = .switches(try reader.featureSwitches(allowCleared: false))
        case .reporting:
            let flags = try reader.fixed("reporting flags", size: 1)
            guard flags[flags.startIndex] & ~1 == 0 else {
                throw WireError(.invalidField, "reporting flags 0x\(String(flags[flags.startIndex], radix: 16)) has unknown bits")
            }
            instruction = .reporting(began: flags[flags.startIndex] & 1 == 1)
        case .workerNotLeader: instruction = .notLeader(leader: reader.remaining > 0 ? try reader.name("leader endpoint") : nil)
        default: throw WireError(.unknownCommand, "\(command) is not a coordinator instruction")
        }
        try reader.end()
        return instruction
    }
}

extension WorkerMessage {
    /// The RESENT of the records of `result`, a RESULT message as it was sent: a copy of its
    /// frames, of their size, under another header, so nothing is decoded or encoded again.
    package static func resent(fromResult result: PackedFrames) -> PackedFrames {
        precondition(result.count > 0 && result.range(of: 0) == 0..<WireHeader.size, "not a message with an ActionBus header")
        var bytes = Array(result.bytes[...])
        bytes.replaceSubrange(0..<WireHeader.size, with: WireHeader.bytes(.resent))
        return PackedFrames(bytes: bytes, ends: Array(result.ends[...]))
    }
}
