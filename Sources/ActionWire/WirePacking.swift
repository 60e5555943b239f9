/// How an ABP/5 message travels: all its frames in one ZeroMQ frame, the header first as it is
/// (6 bytes), then every further frame as a 4-byte big-endian length and its bytes.
///
/// A ZeroMQ frame costs libzmq an allocation, a pipe write, an encoder and a decoder step and a
/// receive call on each side of every hop, whatever its size; a batch of a hundred requests was
/// a hundred and one frames, so the bus paid those costs per request. Packed, it pays them once
/// a message. The codec still reads and writes a message as frames (``WireFrames``): packing
/// happens at the socket, and receivers take a message either way (a packed one is recognised
/// by its header's version and size), so a peer or a test may still send frame by frame.
package enum WirePacking {
    /// The most frames one packed message may hold: a FEATURES message, the largest, has 8194.
    package static let maxFrames = 16_384

    /// The largest frame a bus socket takes (`ZMQ_MAXMSGSIZE`, which libzmq applies to each
    /// frame) when its peers may send bodies of up to `maxMessageBytes`: a packed message holds
    /// one record with such a body, or a batch of ``WireBatching/maxBytes`` of bodies, with up to
    /// ``WireBatching/maxRecords`` records' names and lengths beside them (at most about 1 KiB a
    /// record: four names of 255 bytes), or 1 024 request ids of an ACK or ACCEPTED (260 KiB);
    /// or a list of names: READY, SWITCHES or FEATURES (``largestNameList``, 1.03 MiB). Past it
    /// libzmq drops the connection, and a sender would send the same again on reconnecting:
    /// hence the room to spare.
    package static func maxFrameBytes(maxMessageBytes: Int) -> Int64 {
        Int64(max(max(maxMessageBytes, WireBatching.maxBytes) + 512 * 1024, largestNameList))
    }

    /// The largest message of names, packed: a FEATURES of as many features as a worker may
    /// serve actions (``WireLimits/maxActionsPerWorker``), each a name of the longest and its
    /// state, after a query id; a READY or a SWITCHES of as many is a little smaller.
    static let largestNameList: Int = {
        let limits = WireLimits(), name = 4 + limits.maxNameBytes
        return WireHeader.size + name + limits.maxActionsPerWorker * (name + 4 + 1)
    }()

    /// Whether `frame` is a packed message: an ActionBus header of this version with more after it.
    package static func isPacked(_ frame: UnsafeRawBufferPointer) -> Bool {
        frame.count > WireHeader.size
            && frame.loadUnaligned(as: UInt32.self) == signatureWord
            && frame[4] == WireHeader.version
    }

    /// Calls `body` with each frame `packed` holds, the header first, and returns `true`; returns
    /// `false` without calling it when the lengths do not add up to the frame's size exactly or
    /// there are more than ``maxFrames`` frames. The buffers are slices of `packed`.
    package static func forEachFrame(in packed: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        guard packed.count >= WireHeader.size else { return false }
        // Checked whole before the first frame is handed over: a receiver gets all or nothing.
        var offset = WireHeader.size, frames = 1
        while offset < packed.count {
            guard frames < maxFrames, let frame = frame(in: packed, at: offset) else { return false }
            offset = frame.upperBound
            frames += 1
        }
        body(UnsafeRawBufferPointer(rebasing: packed[0..<WireHeader.size]))
        offset = WireHeader.size
        while offset < packed.count, let frame = frame(in: packed, at: offset) {
            body(UnsafeRawBufferPointer(rebasing: packed[frame]))
            offset = frame.upperBound
        }
        return true
    }

    /// Where the frame whose length is at `offset` lies in `packed`; `nil` when the length, or
    /// the frame, runs past the end.
    private static func frame(in packed: UnsafeRawBufferPointer, at offset: Int) -> Range<Int>? {
        guard packed.count - offset >= 4 else { return nil }
        let length = Int(UInt32(bigEndian: packed.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        guard length <= packed.count - offset - 4 else { return nil }
        return (offset + 4)..<(offset + 4 + length)
    }

    /// The frames `packed` holds (``forEachFrame(in:_:)``) as a list; `nil` when it is not a
    /// well-formed packed message. For tests and tools.
    package static func unpack(_ packed: [UInt8]) -> WireFrameList? {
        var frames = WireFrameList()
        let unpacked = packed.withUnsafeBytes { bytes in
            isPacked(bytes) && forEachFrame(in: bytes) { frames.append($0) }
        }
        return unpacked ? frames : nil
    }

    /// The frames of `frames` from `start` on, packed into one (the frame at `start` is the
    /// header). For tests and tools; senders pack straight into the message they send
    /// (``PackedFrames/pack(from:into:)``).
    package static func pack(_ frames: some WireFrames, from start: Int = 0) -> [UInt8] {
        var message = PackedFrames()
        for index in start..<frames.count { message.append(frames.frame(at: index)) }
        let count = message.packedCount(from: 0)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            message.pack(from: 0, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// `"ABUS"` as the first four bytes load on this machine.
    private static let signatureWord: UInt32 = WireHeader.signature.withUnsafeBytes { $0.load(as: UInt32.self) }
}

extension PackedFrames {
    /// How many bytes the frames from `start` on take packed into one (``WirePacking``).
    package func packedCount(from start: Int) -> Int {
        precondition(start < count, "a packed message has at least its header")
        return bytes.count - range(of: start).lowerBound + 4 * (count - start - 1)
    }

    /// Writes the frames from `start` on into `buffer`, packed (``WirePacking``); `buffer` must
    /// hold exactly ``packedCount(from:)`` bytes: a message's own buffer, so that the bytes are
    /// copied once, as sending them frame by frame did.
    package func pack(from start: Int, into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count == packedCount(from: start), "a packed message fills its buffer exactly")
        bytes.withUnsafeBytes { source in
            var offset = 0
            for index in start..<count {
                let range = range(of: index)
                if index > start {
                    buffer.storeBytes(of: UInt32(range.count).bigEndian, toByteOffset: offset, as: UInt32.self)
                    offset += 4
                }
                if !range.isEmpty {
                    (buffer.baseAddress! + offset).copyMemory(from: source.baseAddress! + range.lowerBound, byteCount: range.count)
                }
                offset += range.count
            }
        }
    }
}
