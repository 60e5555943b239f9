/// A Majordomo worker's message on the workers socket: MDP/0.1 (ZeroMQ RFC 7), as the zguide's
/// `mdwrkapi` speaks it.
///
/// Frames after the routing id: an empty frame, `"MDPW01"`, the command byte, then
/// READY `0x01`: service · REPLY `0x03`: client address, empty, body frames ·
/// HEARTBEAT `0x04` · DISCONNECT `0x05`.
public enum MajordomoWorkerMessage: Hashable, Sendable {
    /// The worker serves `service`, an ActionBus action name.
    case ready(service: String)
    /// The answer to the REQUEST sent with `clientAddress` (the coordinator's request id).
    case reply(clientAddress: [UInt8], body: [[UInt8]])
    /// The worker is alive.
    case heartbeat
    /// The worker leaves.
    case disconnect

    /// The MDP/0.1 worker signature frame.
    public static let workerHeader: [UInt8] = Array("MDPW01".utf8)

    /// Whether the frames from `start` are a Majordomo worker's (`"MDPW"`, any version), with
    /// or without the empty first frame.
    public static func matches<Frames: WireFrames>(_ frames: Frames, at start: Int) -> Bool {
        guard let signature = MajordomoRequest.signatureIndex(frames, at: start) else { return false }
        return frames.frame(at: signature).starts(with: Array("MDPW".utf8))
    }

    /// Decodes an MDP/0.1 worker message starting at `start` (after the routing id).
    ///
    /// - Throws: ``WireError`` `unsupportedVersion` for another MDPW version, `unknownCommand`
    ///   for a command a worker does not send, `truncated`/`extraFrames` for a wrong frame
    ///   count, and the name rule's errors for the service.
    public static func decode<Frames: WireFrames>(
        _ frames: Frames, at start: Int, limits: WireLimits = WireLimits()
    ) throws(WireError) -> MajordomoWorkerMessage {
        guard let signature = MajordomoRequest.signatureIndex(frames, at: start) else {
            throw WireError(.badSignature, "not a Majordomo message")
        }
        let header = frames.frame(at: signature)
        guard header.elementsEqual(workerHeader) else {
            let text = String(decoding: header.prefix(16), as: UTF8.self)
            throw WireError(.unsupportedVersion, "'\(text)' is not a Majordomo worker version spoken here (MDPW01)")
        }
        guard signature + 1 < frames.count else { throw WireError(.truncated, "MDP/0.1 worker message has no command") }
        let command = frames.frame(at: signature + 1)
        let rest = frames.count - signature - 2
        func expect(_ count: Int, _ name: String) throws(WireError) {
            if rest < count { throw WireError(.truncated, "MDP/0.1 \(name) needs \(count) frame(s) after the command") }
            if rest > count { throw WireError(.extraFrames, "MDP/0.1 \(name) has \(rest - count) extra frame(s)") }
        }
        switch command.count == 1 ? command.first : nil {
        case 0x01:
            try expect(1, "READY")
            return .ready(service: try WireName.validate(frames.frame(at: signature + 2), field: "MDP/0.1 READY service", limits: limits))
        case 0x03:
            guard rest >= 2 else { throw WireError(.truncated, "MDP/0.1 REPLY needs a client address and an empty frame") }
            guard frames.frame(at: signature + 3).isEmpty else {
                throw WireError(.invalidField, "MDP/0.1 REPLY: the frame after the client address must be empty")
            }
            let address = Array(frames.frame(at: signature + 2))
            guard address.count <= limits.maxNameBytes else {
                throw WireError(.oversize, "MDP/0.1 REPLY client address has \(address.count) bytes, limit \(limits.maxNameBytes)")
            }
            var body: [[UInt8]] = []
            var bytes = 0
            for index in (signature + 4)..<frames.count {
                let frame = frames.frame(at: index)
                bytes += frame.count
                guard bytes <= limits.maxBodyBytes else {
                    throw WireError(.oversize, "MDP/0.1 REPLY body has more than \(limits.maxBodyBytes) bytes")
                }
                body.append(Array(frame))
            }
            return .reply(clientAddress: address, body: body)
        case 0x04:
            try expect(0, "HEARTBEAT")
            return .heartbeat
        case 0x05:
            try expect(0, "DISCONNECT")
            return .disconnect
        default:
            throw WireError(.unknownCommand, "MDP/0.1 worker command \(Array(command)) is not READY, REPLY, HEARTBEAT or DISCONNECT")
        }
    }

    /// Appends a REQUEST for an MDP/0.1 worker (after the routing id): the client address it
    /// must echo in its REPLY, and the body.
    public static func encodeRequest<Writer: WireFrameWriter, Body: Sequence<UInt8>>(
        clientAddress: String, body: Body, into writer: inout Writer
    ) {
        writer.appendEmpty()
        writer.append(workerHeader)
        writer.append([0x02])
        writer.append(clientAddress)
        writer.appendEmpty()
        writer.append(body)
    }

    /// Appends a HEARTBEAT for an MDP/0.1 worker.
    public static func encodeHeartbeat<Writer: WireFrameWriter>(into writer: inout Writer) {
        writer.appendEmpty()
        writer.append(workerHeader)
        writer.append([0x04])
    }

    /// Appends a DISCONNECT for an MDP/0.1 worker: it reconnects and sends READY again.
    public static func encodeDisconnect<Writer: WireFrameWriter>(into writer: inout Writer) {
        writer.appendEmpty()
        writer.append(workerHeader)
        writer.append([0x05])
    }
}
