/// Which Majordomo client framing a peer uses.
public enum MajordomoDialect: Hashable, Sendable {
    /// ZeroMQ RFC 18 (MDP/0.2) from a DEALER: `"MDPC02"`, REQUEST `0x01`, service, body;
    /// replies PARTIAL `0x02` / FINAL `0x03` carry the service name.
    case rfc18
    /// The Python `majortomo` 0.2.0 client: an empty frame first, REQUEST `0x02`; replies
    /// `"", "MDPC02", 0x03/0x04, body` with no service frame.
    case delimited
    /// RFC 18 commands from a REQ socket (which adds the empty frame): REQUEST `0x01`; replies
    /// `"", "MDPC02", 0x03, service, body`.
    case rfc18Delimited
}

/// A Majordomo (MDP/0.2) client request on the clients socket.
public struct MajordomoRequest: Hashable, Sendable {
    /// The client signature frame.
    public static let clientHeader: [UInt8] = Array("MDPC02".utf8)

    /// How the client framed it, and so how to answer.
    public var dialect: MajordomoDialect
    /// The service: an ActionBus action name, `Feature.action`.
    public var service: String
    /// The body: the action's JSON input (frames after the first are not allowed).
    public var body: [UInt8]

    /// Whether the frames from `start` look like a Majordomo client message (either dialect).
    public static func matches<Frames: WireFrames>(_ frames: Frames, at start: Int) -> Bool {
        guard start < frames.count else { return false }
        let first = frames.frame(at: start)
        if first.elementsEqual(clientHeader) { return true }
        return first.isEmpty && start + 1 < frames.count && frames.frame(at: start + 1).elementsEqual(clientHeader)
    }

    /// Decodes a Majordomo client REQUEST starting at `start` (after the routing id).
    public static func decode<Frames: WireFrames>(
        _ frames: Frames, at start: Int, limits: WireLimits = WireLimits()
    ) throws(WireError) -> MajordomoRequest {
        guard matches(frames, at: start) else {
            throw WireError(.badSignature, "not a Majordomo MDPC02 message")
        }
        let delimited = frames.frame(at: start).isEmpty
        var index = start + (delimited ? 2 : 1)
        guard index + 1 < frames.count else {
            throw WireError(.truncated, "Majordomo request needs a command and a service")
        }
        let command = frames.frame(at: index)
        let dialect: MajordomoDialect
        switch (delimited, command.count == 1 ? command.first : nil) {
        case (false, 0x01): dialect = .rfc18
        case (true, 0x02): dialect = .delimited
        case (true, 0x01): dialect = .rfc18Delimited
        default:
            throw WireError(.unknownCommand, "Majordomo client command \(Array(command)) is not REQUEST")
        }
        index += 1
        // The service becomes the action name, journaled and in stream topics: the same rule.
        let service = try WireName.validate(frames.frame(at: index), field: "Majordomo service", limits: limits)
        index += 1
        guard frames.count - index <= 1 else {
            throw WireError(.extraFrames, "Majordomo request body must be one frame (the JSON input)")
        }
        let body = index < frames.count ? frames.frame(at: index) : []
        guard body.count <= limits.maxBodyBytes else {
            throw WireError(.oversize, "Majordomo body has \(body.count) bytes, limit \(limits.maxBodyBytes)")
        }
        return MajordomoRequest(dialect: dialect, service: service, body: Array(body))
    }

    /// Appends the FINAL reply frames (after the routing id) for `dialect`.
    public static func encodeFinalReply<Writer: WireFrameWriter>(
        dialect: MajordomoDialect, service: String, body: [UInt8], into writer: inout Writer
    ) {
        switch dialect {
        case .rfc18:
            writer.append(clientHeader)
            writer.append([0x03])
            writer.append(service)
        case .delimited:
            writer.appendEmpty()
            writer.append(clientHeader)
            writer.append([0x04])
        case .rfc18Delimited:
            writer.appendEmpty()
            writer.append(clientHeader)
            writer.append([0x03])
            writer.append(service)
        }
        writer.append(body)
    }
}
