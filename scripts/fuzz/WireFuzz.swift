// libFuzzer harness for the ActionWire codec. Built by scripts/fuzz.sh together with the codec's
// sources (a SwiftPM executable would hide its entry point from libFuzzer's main).
//
// The input is split into frames: each frame is one length byte followed by that many bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireCodec(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var frames = WireFrameList()
    var index = 0
    while index < bytes.count {
        let length = Int(bytes[index])
        index += 1
        let end = min(bytes.count, index + length)
        frames.append(bytes[index..<end])
        index = end
    }
    let limits = WireLimits(maxBodyBytes: 64)
    if let message = try? ClientMessage.decode(frames, limits: limits) {
        // Whatever decodes must encode back to frames that decode to the same message.
        var again = WireFrameList()
        message.encode(into: &again)
        precondition((try? ClientMessage.decode(again, limits: limits)) == message, "ClientMessage round trip")
    }
    _ = try? ClientReply.decode(frames, limits: limits)
    if let message = try? WorkerMessage.decode(frames, limits: limits) {
        var again = WireFrameList()
        message.encode(into: &again)
        precondition((try? WorkerMessage.decode(again, limits: limits)) == message, "WorkerMessage round trip")
    }
    _ = try? WorkerInstruction.decode(frames, limits: limits)
    _ = try? StreamMessage.decode(frames, limits: limits)
    if frames.count > 1 {
        _ = try? MajordomoRequest.decode(frames, at: 1, limits: limits)
        _ = MajordomoRequest.refusal(frames, at: 1, body: [])
        _ = try? MajordomoWorkerMessage.decode(frames, at: 1, limits: limits)
    }
    if frames.count > 0 {
        let request = try? WireRequest.unpack(frames.frame(at: 0), command: .perform, limits: limits)
        // What the coordinator takes, the input left in the message, is the plain decode or refused alike.
        let leavingInput = (try? WireRequest.unpackLeavingInput(frames.frame(at: 0), command: .perform, limits: limits)).map {
            var whole = $0.request
            whole.input = Array($0.input)
            return whole
        }
        precondition(leavingInput == request, "request decoded leaving its input reads as the plain decode")
        let plain = try? WireOutcome.unpack(frames.frame(at: 0), command: .outcome, limits: limits)
        // What the coordinator forwards reads as the plain decode, or is refused alike, and goes out as it came.
        let forwarded = try? WireOutcome.unpackForwarding(frames.frame(at: 0), command: .result, limits: limits)
        precondition(forwarded == plain, "forwarded outcome reads as the plain decode")
        if let forwarded { precondition(forwarded.packed == Array(frames.frame(at: 0)), "forwarded outcome's bytes") }
    }
    if frames.count > 0 {
        // A packed message (ABP/5: what receivers unpack) unpacks whole or not at all, and what
        // it unpacks to packs back to the same bytes; any frames pack to what unpacks to them.
        let first = Array(frames.frame(at: 0))
        if let unpacked = WirePacking.unpack(first) {
            precondition(WirePacking.pack(unpacked) == first, "unpacked frames pack back to the message")
            _ = try? ClientMessage.decode(unpacked, limits: limits)
            _ = try? WorkerMessage.decode(unpacked, limits: limits)
        }
        if first.count == WireHeader.size, WireHeader.hasSignature(first[...]), first[4] == WireHeader.version,
           frames.count > 1, frames.count <= WirePacking.maxFrames {
            precondition(WirePacking.unpack(WirePacking.pack(frames)) == frames, "packed frames unpack to themselves")
        }
    }
    return 0
}
