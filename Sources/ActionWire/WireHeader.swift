/// The first frame of every ActionBus message: `"ABUS"`, the protocol version, the command.
package enum WireHeader {
    /// The four signature bytes, `"ABUS"`.
    package static let signature: [UInt8] = Array("ABUS".utf8)
    /// The protocol version this codec speaks: 5 since a message's frames travel packed into
    /// one (``WirePacking``) (4 ended sessions over the bus, said whether a user initiated a
    /// request and whether an action performed an outcome; 3 packed requests and outcomes into
    /// records, several to a message; 2 added ACCEPTED with many request ids and ACK).
    package static let version: UInt8 = 5
    /// The header's size in bytes.
    package static let size = 6

    /// The header frame for `command`.
    package static func bytes(_ command: WireCommand) -> [UInt8] {
        frames[Int(command.rawValue)]
    }

    /// Every possible header, made once: encoding a message allocates no header array.
    private static let frames: [[UInt8]] = (0...255).map { signature + [version, UInt8($0)] }

    /// Whether `frame` starts with the ActionBus signature (whatever its version).
    package static func hasSignature(_ frame: ArraySlice<UInt8>) -> Bool {
        frame.count >= 4 && frame.prefix(4).elementsEqual(signature)
    }

    /// The command in a header frame.
    ///
    /// - Throws: ``WireError`` `badSignature`, `unsupportedVersion` or `unknownCommand`.
    package static func command(in frame: ArraySlice<UInt8>) throws(WireError) -> WireCommand {
        guard hasSignature(frame) else {
            throw WireError(.badSignature, "first frame is not an ActionBus header")
        }
        guard frame.count >= size else {
            throw WireError(.truncated, "header has \(frame.count) bytes, expected \(size)")
        }
        // The version before the size: another version's message may be packed otherwise.
        let version = frame[frame.startIndex + 4]
        guard version == Self.version else {
            throw WireError(.unsupportedVersion, "protocol version \(version) is not supported (this peer speaks \(Self.version))")
        }
        guard frame.count == size else {
            throw WireError(
                .truncated, "header has \(frame.count) bytes, expected \(size) (a packed message whose frame lengths do not add up to its size)"
            )
        }
        let code = frame[frame.startIndex + 5]
        guard let command = WireCommand(rawValue: code) else {
            throw WireError(.unknownCommand, "unknown command 0x\(String(code, radix: 16))")
        }
        return command
    }
}
