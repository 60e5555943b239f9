/// Which Majordomo client framing a peer uses.
package enum MajordomoDialect: Hashable, Sendable {
    /// ZeroMQ RFC 7 (MDP/0.1) from a REQ socket, or a DEALER that sends the empty frame itself
    /// (the zguide's `mdcliapi` and `mdcliapi2`): `"", "MDPC01", service, body`; the reply is
    /// `"", "MDPC01", service, body`.
    case v01Delimited
    /// RFC 7 from a DEALER without the empty frame: `"MDPC01", service, body`, answered alike.
    case v01
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

/// A Majordomo client request (MDP/0.1 or MDP/0.2) on the clients socket.
package struct MajordomoRequest: Hashable, Sendable {
    /// The MDP/0.2 client signature frame.
    package static let clientHeader: [UInt8] = Array("MDPC02".utf8)
    /// The MDP/0.1 client signature frame.
    package static let clientHeaderV01: [UInt8] = Array("MDPC01".utf8)
    /// What every Majordomo signature starts with: a message that starts so and is not spoken
    /// here still gets an answer (see ``refusal(_:at:)``).
    static let family: [UInt8] = Array("MDP".utf8)

    /// How the client framed it, and so how to answer.
    package var dialect: MajordomoDialect
    /// The service: an ActionBus action name, `Feature.action`.
    package var service: String
    /// The body: the action's JSON input (frames after the first are not allowed).
    package var body: [UInt8]

    /// Whether the frames from `start` look like a Majordomo message of any version or role
    /// (a first frame, or an empty frame and then one, starting with `"MDP"`).
    package static func matches<Frames: WireFrames>(_ frames: Frames, at start: Int) -> Bool {
        signatureIndex(frames, at: start) != nil
    }

    /// Where the Majordomo signature frame is: `start`, or `start + 1` after an empty frame.
    static func signatureIndex<Frames: WireFrames>(_ frames: Frames, at start: Int) -> Int? {
        guard start < frames.count else { return nil }
        let first = frames.frame(at: start)
        if first.starts(with: family) { return start }
        guard first.isEmpty, start + 1 < frames.count, frames.frame(at: start + 1).starts(with: family) else { return nil }
        return start + 1
    }

    /// Decodes a Majordomo client REQUEST starting at `start` (after the routing id).
    package static func decode<Frames: WireFrames>(
        _ frames: Frames, at start: Int, limits: WireLimits = WireLimits()
    ) throws(WireError) -> MajordomoRequest {
        guard let signature = signatureIndex(frames, at: start) else {
            throw WireError(.badSignature, "not a Majordomo message")
        }
        let delimited = signature > start
        let header = frames.frame(at: signature)
        var index = signature + 1
        let dialect: MajordomoDialect
        if header.elementsEqual(clientHeaderV01) {
            // RFC 7 has no command frame: the service follows the signature.
            guard index < frames.count else { throw WireError(.truncated, "MDP/0.1 request needs a service") }
            dialect = delimited ? .v01Delimited : .v01
        } else if header.elementsEqual(clientHeader) {
            guard index + 1 < frames.count else {
                throw WireError(.truncated, "Majordomo request needs a command and a service")
            }
            let command = frames.frame(at: index)
            switch (delimited, command.count == 1 ? command.first : nil) {
            case (false, 0x01): dialect = .rfc18
            case (true, 0x02): dialect = .delimited
            case (true, 0x01): dialect = .rfc18Delimited
            default:
                throw WireError(.unknownCommand, "Majordomo client command \(Array(command)) is not REQUEST")
            }
            index += 1
        } else {
            let text = String(decoding: header.prefix(16), as: UTF8.self)
            throw WireError(.unsupportedVersion, "'\(text)' is not a Majordomo client version spoken here (MDPC01, MDPC02)")
        }
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
    ///
    /// Inlinable, so that it is specialised for the coordinator's writer: unspecialised, each
    /// frame it appended looked up type metadata. The service goes in as the string's bytes,
    /// with no array made of them.
    @inlinable
    package static func encodeFinalReply<Writer: WireFrameWriter>(
        dialect: MajordomoDialect, service: String, body: [UInt8], into writer: inout Writer
    ) {
        encodeFinalReply(dialect: dialect, service: service.utf8, body: body, into: &writer)
    }

    /// The frames that answer a Majordomo message that could not be taken (its version, its
    /// command or a field): the framing its signature asks for, the service frame it sent (as
    /// sent, so a client that checks it accepts the answer), and `body`, an error as outcome
    /// JSON. `nil` when there is no one to answer: a worker's message (MDPW), or a client
    /// message too short to name a service.
    package static func refusal<Frames: WireFrames>(_ frames: Frames, at start: Int, body: [UInt8]) -> WireFrameList? {
        guard let signature = signatureIndex(frames, at: start) else { return nil }
        let header = frames.frame(at: signature)
        guard header.starts(with: Array("MDPC".utf8)) else { return nil }
        let delimited = signature > start
        var reply = WireFrameList()
        if header.elementsEqual(clientHeader) {
            // MDP/0.2: after the command frame, the service; answered as a FINAL.
            guard signature + 2 < frames.count else { return nil }
            let command = frames.frame(at: signature + 1)
            let dialect: MajordomoDialect = !delimited ? .rfc18 : (command.elementsEqual([0x02]) ? .delimited : .rfc18Delimited)
            encodeFinalReply(dialect: dialect, service: frames.frame(at: signature + 2), body: body, into: &reply)
        } else {
            // MDP/0.1, or a version not spoken here: answered in RFC 7's framing, its own signature
            // echoed.
            guard signature + 1 < frames.count else { return nil }
            if delimited { reply.appendEmpty() }
            reply.append(header)
            reply.append(frames.frame(at: signature + 1))
            reply.append(body)
        }
        return reply
    }

    @inlinable
    static func encodeFinalReply<Writer: WireFrameWriter, Service: Sequence<UInt8>>(
        dialect: MajordomoDialect, service: Service, body: [UInt8], into writer: inout Writer
    ) {
        switch dialect {
        case .v01:
            writer.append(clientHeaderV01)
            writer.append(service)
        case .v01Delimited:
            writer.appendEmpty()
            writer.append(clientHeaderV01)
            writer.append(service)
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
