/// The Majordomo worker protocols spoken on the workers socket.
package enum MajordomoWorkerVersion: String, Hashable, Sendable {
    /// MDP/0.1 (ZeroMQ RFC 7), as the zguide's `mdwrkapi` speaks it.
    case v01 = "MDPW01"
    /// MDP/0.2 (ZeroMQ RFC 18), as Python's `majortomo` `Worker` speaks it.
    case v02 = "MDPW02"

    /// The signature frame.
    package var header: [UInt8] { Array(rawValue.utf8) }
    /// `MDP/0.1` or `MDP/0.2`, for people.
    package var name: String { self == .v01 ? "MDP/0.1" : "MDP/0.2" }
    /// The command bytes that differ between the versions.
    var heartbeat: UInt8 { self == .v01 ? 0x04 : 0x05 }
    var disconnect: UInt8 { self == .v01 ? 0x05 : 0x06 }
}

/// A Majordomo worker's message on the workers socket: MDP/0.1 (ZeroMQ RFC 7) or MDP/0.2
/// (RFC 18).
///
/// Frames after the routing id: an empty frame, `"MDPW01"` or `"MDPW02"`, the command byte, then
/// - MDP/0.1: READY `0x01`: service · REPLY `0x03`: client address, empty, body frames ·
///   HEARTBEAT `0x04` · DISCONNECT `0x05`;
/// - MDP/0.2: READY `0x01`: service · PARTIAL `0x03` and FINAL `0x04`: client address, empty,
///   body frames · HEARTBEAT `0x05` · DISCONNECT `0x06`.
package enum MajordomoWorkerMessage: Hashable, Sendable {
    /// The worker serves `service`, an ActionBus action name.
    case ready(service: String)
    /// The answer to the REQUEST sent with `clientAddress` (the coordinator's request id):
    /// MDP/0.1's REPLY, MDP/0.2's FINAL.
    case reply(clientAddress: [UInt8], body: [[UInt8]])
    /// MDP/0.2's PARTIAL: part of an answer still to come. An outcome has one output, so the
    /// coordinator keeps only the FINAL; a PARTIAL is a sign of life.
    case partial(clientAddress: [UInt8])
    /// The worker is alive.
    case heartbeat
    /// The worker leaves.
    case disconnect

    /// The MDP/0.1 worker signature frame.
    package static let workerHeader: [UInt8] = MajordomoWorkerVersion.v01.header

    /// Whether the frames from `start` are a Majordomo worker's (`"MDPW"`, any version), with
    /// or without the empty first frame.
    package static func matches<Frames: WireFrames>(_ frames: Frames, at start: Int) -> Bool {
        guard let signature = MajordomoRequest.signatureIndex(frames, at: start) else { return false }
        return frames.frame(at: signature).starts(with: workerFamily)
    }

    private static let workerFamily = Array("MDPW".utf8)

    /// The version the frames from `start` speak, when it is one spoken here.
    package static func version<Frames: WireFrames>(_ frames: Frames, at start: Int) -> MajordomoWorkerVersion? {
        guard let signature = MajordomoRequest.signatureIndex(frames, at: start) else { return nil }
        return MajordomoWorkerVersion(rawValue: String(decoding: frames.frame(at: signature), as: UTF8.self))
    }

    /// Decodes a Majordomo worker message starting at `start` (after the routing id).
    ///
    /// - Throws: ``WireError`` `unsupportedVersion` for another MDPW version, `unknownCommand`
    ///   for a command a worker does not send, `truncated`/`extraFrames` for a wrong frame
    ///   count, and the name rule's errors for the service.
    package static func decode<Frames: WireFrames>(
        _ frames: Frames, at start: Int, limits: WireLimits = WireLimits()
    ) throws(WireError) -> MajordomoWorkerMessage {
        guard let signature = MajordomoRequest.signatureIndex(frames, at: start) else {
            throw WireError(.badSignature, "not a Majordomo message")
        }
        guard let version = MajordomoWorkerVersion(rawValue: String(decoding: frames.frame(at: signature), as: UTF8.self)) else {
            let text = String(decoding: frames.frame(at: signature).prefix(16), as: UTF8.self)
            throw WireError(.unsupportedVersion, "'\(text)' is not a Majordomo worker version spoken here (MDPW01, MDPW02)")
        }
        let name = version.name
        guard signature + 1 < frames.count else { throw WireError(.truncated, "\(name) worker message has no command") }
        let command = frames.frame(at: signature + 1)
        let rest = frames.count - signature - 2
        func expect(_ count: Int, _ command: String) throws(WireError) {
            if rest < count { throw WireError(.truncated, "\(name) \(command) needs \(count) frame(s) after the command") }
            if rest > count { throw WireError(.extraFrames, "\(name) \(command) has \(rest - count) extra frame(s)") }
        }
        func clientAddress(_ command: String) throws(WireError) -> [UInt8] {
            guard rest >= 2 else { throw WireError(.truncated, "\(name) \(command) needs a client address and an empty frame") }
            guard frames.frame(at: signature + 3).isEmpty else {
                throw WireError(.invalidField, "\(name) \(command): the frame after the client address must be empty")
            }
            let address = Array(frames.frame(at: signature + 2))
            guard address.count <= limits.maxNameBytes else {
                throw WireError(.oversize, "\(name) \(command) client address has \(address.count) bytes, limit \(limits.maxNameBytes)")
            }
            return address
        }
        func body(_ command: String) throws(WireError) -> [[UInt8]] {
            var body: [[UInt8]] = []
            var bytes = 0
            for index in (signature + 4)..<frames.count {
                let frame = frames.frame(at: index)
                bytes += frame.count
                guard bytes <= limits.maxBodyBytes else {
                    throw WireError(.oversize, "\(name) \(command) body has more than \(limits.maxBodyBytes) bytes")
                }
                body.append(Array(frame))
            }
            return body
        }
        switch (version, command.count == 1 ? command.first : nil) {
        case (_, 0x01):
            try expect(1, "READY")
            return .ready(service: try WireName.validate(frames.frame(at: signature + 2), field: "\(name) READY service", limits: limits))
        case (.v01, 0x03):
            let address = try clientAddress("REPLY")
            return .reply(clientAddress: address, body: try body("REPLY"))
        case (.v02, 0x04):
            let address = try clientAddress("FINAL")
            return .reply(clientAddress: address, body: try body("FINAL"))
        case (.v02, 0x03):
            let address = try clientAddress("PARTIAL")
            _ = try body("PARTIAL")
            return .partial(clientAddress: address)
        case (_, version.heartbeat):
            try expect(0, "HEARTBEAT")
            return .heartbeat
        case (_, version.disconnect):
            try expect(0, "DISCONNECT")
            return .disconnect
        default:
            let known = version == .v01 ? "READY, REPLY, HEARTBEAT or DISCONNECT" : "READY, PARTIAL, FINAL, HEARTBEAT or DISCONNECT"
            throw WireError(.unknownCommand, "\(name) worker command \(Array(command)) is not \(known)")
        }
    }

    /// Appends a REQUEST for a Majordomo worker (after the routing id): the client address it
    /// must echo in its reply, and the body.
    package static func encodeRequest<Writer: WireFrameWriter, Body: Sequence<UInt8>>(
        clientAddress: String, body: Body, version: MajordomoWorkerVersion = .v01, into writer: inout Writer
    ) {
        writer.appendEmpty()
        writer.append(version.header)
        writer.append([0x02])
        writer.append(clientAddress)
        writer.appendEmpty()
        writer.append(body)
    }

    /// Appends a HEARTBEAT for a Majordomo worker.
    package static func encodeHeartbeat<Writer: WireFrameWriter>(version: MajordomoWorkerVersion = .v01, into writer: inout Writer) {
        writer.appendEmpty()
        writer.append(version.header)
        writer.append([version.heartbeat])
    }

    /// Appends a DISCONNECT for a Majordomo worker: it reconnects and sends READY again.
    package static func encodeDisconnect<Writer: WireFrameWriter>(version: MajordomoWorkerVersion = .v01, into writer: inout Writer) {
        writer.appendEmpty()
        writer.append(version.header)
        writer.append([version.disconnect])
    }
}
