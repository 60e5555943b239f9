// The codec's decoders and encoders for ``PackedFrames``, the layout a transport's buffer has:
// each is the generic one specialised here, since one called from another module runs
// unspecialised.
//
// Each calls the generic one through a generic local function, which names it unambiguously
// (the overload here would otherwise call itself).

extension ClientMessage {
    /// ``decode(_:at:limits:)`` for a transport's buffer.
    package static func decode(_ frames: PackedFrames, at start: Int = 0, limits: WireLimits = WireLimits()) throws(WireError) -> ClientMessage {
        func generic<Frames: WireFrames>(_ frames: Frames) throws(WireError) -> ClientMessage { try decode(frames, at: start, limits: limits) }
        return try generic(frames)
    }
}

extension ClientReply {
    /// ``decode(_:at:limits:)`` for a transport's buffer.
    package static func decode(_ frames: PackedFrames, at start: Int = 0, limits: WireLimits = WireLimits()) throws(WireError) -> ClientReply {
        func generic<Frames: WireFrames>(_ frames: Frames) throws(WireError) -> ClientReply { try decode(frames, at: start, limits: limits) }
        return try generic(frames)
    }
}

extension WorkerMessage {
    /// ``decode(_:at:limits:)`` for a transport's buffer.
    package static func decode(_ frames: PackedFrames, at start: Int = 0, limits: WireLimits = WireLimits()) throws(WireError) -> WorkerMessage {
        func generic<Frames: WireFrames>(_ frames: Frames) throws(WireError) -> WorkerMessage { try decode(frames, at: start, limits: limits) }
        return try generic(frames)
    }
}

extension WorkerInstruction {
    /// ``decode(_:at:limits:)`` for a transport's buffer.
    package static func decode(_ frames: PackedFrames, at start: Int = 0, limits: WireLimits = WireLimits()) throws(WireError) -> WorkerInstruction {
        func generic<Frames: WireFrames>(_ frames: Frames) throws(WireError) -> WorkerInstruction { try decode(frames, at: start, limits: limits) }
        return try generic(frames)
    }
}

extension StreamMessage {
    /// ``decode(_:limits:)`` for a transport's buffer.
    package static func decode(_ frames: PackedFrames, limits: WireLimits = WireLimits()) throws(WireError) -> StreamMessage {
        func generic<Frames: WireFrames>(_ frames: Frames) throws(WireError) -> StreamMessage { try decode(frames, limits: limits) }
        return try generic(frames)
    }
}

extension MajordomoWorkerMessage {
    /// ``decode(_:at:limits:)`` for a transport's buffer.
    package static func decode(_ frames: PackedFrames, at start: Int, limits: WireLimits = WireLimits()) throws(WireError) -> MajordomoWorkerMessage {
        func generic<Frames: WireFrames>(_ frames: Frames) throws(WireError) -> MajordomoWorkerMessage { try decode(frames, at: start, limits: limits) }
        return try generic(frames)
    }
}

extension MajordomoRequest {
    /// ``decode(_:at:limits:)`` for a transport's buffer.
    package static func decode(_ frames: PackedFrames, at start: Int, limits: WireLimits = WireLimits()) throws(WireError) -> MajordomoRequest {
        func generic<Frames: WireFrames>(_ frames: Frames) throws(WireError) -> MajordomoRequest { try decode(frames, at: start, limits: limits) }
        return try generic(frames)
    }
}

extension MajordomoRequest {
    /// ``matches(_:at:)`` for a transport's buffer.
    package static func matches(_ frames: PackedFrames, at start: Int) -> Bool {
        func generic<Frames: WireFrames>(_ frames: Frames) -> Bool { matches(frames, at: start) }
        return generic(frames)
    }
}

extension MajordomoWorkerMessage {
    /// ``matches(_:at:)`` for a transport's buffer.
    package static func matches(_ frames: PackedFrames, at start: Int) -> Bool {
        func generic<Frames: WireFrames>(_ frames: Frames) -> Bool { matches(frames, at: start) }
        return generic(frames)
    }
}

extension ClientMessage {
    /// ``encode(into:)`` for a transport's buffer.
    package func encode(into frames: inout PackedFrames) {
        func generic<Writer: WireFrameWriter>(_ writer: inout Writer) { encode(into: &writer) }
        generic(&frames)
    }
}

extension ClientReply {
    /// ``encode(into:)`` for a transport's buffer.
    package func encode(into frames: inout PackedFrames) {
        func generic<Writer: WireFrameWriter>(_ writer: inout Writer) { encode(into: &writer) }
        generic(&frames)
    }
}

extension WorkerMessage {
    /// ``encode(into:)`` for a transport's buffer.
    package func encode(into frames: inout PackedFrames) {
        func generic<Writer: WireFrameWriter>(_ writer: inout Writer) { encode(into: &writer) }
        generic(&frames)
    }
}

extension WorkerInstruction {
    /// ``encode(into:)`` for a transport's buffer.
    package func encode(into frames: inout PackedFrames) {
        func generic<Writer: WireFrameWriter>(_ writer: inout Writer) { encode(into: &writer) }
        generic(&frames)
    }
}

extension StreamMessage {
    /// ``encode(into:)`` for a transport's buffer.
    package func encode(into frames: inout PackedFrames) {
        func generic<Writer: WireFrameWriter>(_ writer: inout Writer) { encode(into: &writer) }
        generic(&frames)
    }
}
