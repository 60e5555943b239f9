/// Read access to the frames of one multipart message, whatever holds them.
///
/// The codec reads through this protocol so it needs no socket library; the transport makes
/// its multipart buffer conform.
package protocol WireFrames {
    /// The number of frames.
    var count: Int { get }
    /// The bytes of frame `index`.
    func frame(at index: Int) -> ArraySlice<UInt8>
}

/// Write access to a multipart message being built.
package protocol WireFrameWriter {
    /// Appends a frame of bytes.
    mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8
    /// Appends a frame of UTF-8 text.
    mutating func append(_ text: String)
    /// Appends an empty frame.
    mutating func appendEmpty()
    /// Appends `outcome` as one packed record frame (``PackedRecord``).
    mutating func appendRecord(_ outcome: WireOutcome)
    /// Appends `request` as one packed record frame (``PackedRecord``).
    mutating func appendRecord(_ request: WireRequest)
}

extension WireFrameWriter {
    package mutating func appendRecord(_ outcome: WireOutcome) {
        append(outcome.packed)
    }

    package mutating func appendRecord(_ request: WireRequest) {
        append(request.packed)
    }
}

/// Frames as a transport's multipart buffer holds them: every frame's bytes in one buffer, and
/// where each ends. Read, and written, by the codec.
///
/// The codec's entry points take it as a concrete type: a generic decode or encode called from
/// another module runs unspecialised, looking up the metadata of its generic types on every
/// message and record, which cost a stream subscriber 14 % of its CPU.
package struct PackedFrames: WireFrames, WireFrameWriter, Sendable {
    package private(set) var bytes: [UInt8]
    package private(set) var ends: [Int]

    /// Frames whose bytes are `bytes`, frame `i` ending at `ends[i]` (ascending).
    package init(bytes: [UInt8] = [], ends: [Int] = []) {
        self.bytes = bytes
        self.ends = ends
    }

    package var count: Int { ends.count }

    package func frame(at index: Int) -> ArraySlice<UInt8> {
        bytes[range(of: index)]
    }

    /// Where frame `index` is in ``bytes``.
    package func range(of index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1])..<ends[index]
    }

    package mutating func append<Bytes: Sequence>(_ frame: Bytes) where Bytes.Element == UInt8 {
        // Called unspecialised (through the writer protocol, from generic code in another
        // module), appending a generic sequence looks up type metadata at every step; arrays,
        // slices and buffers lend their bytes and are copied whole.
        let copied: Void? = frame.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: frame) }
        ends.append(bytes.count)
    }

    package mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        ends.append(bytes.count)
    }

    package mutating func appendEmpty() {
        ends.append(bytes.count)
    }

    /// Writes the record's fields straight into the message's buffer: no array of its own
    /// for each outcome, copied in and freed again.
    package mutating func appendRecord(_ outcome: WireOutcome) {
        appendRecord { $0.appendFields(of: outcome) }
    }

    package mutating func appendRecord(_ request: WireRequest) {
        appendRecord { request.encode(into: &$0) }
    }

    /// The message's buffer lent to a record writer, which appends the record at its end.
    mutating func appendRecord(_ write: (inout PackedRecordWriter) -> Void) {
        PackedRecordWriter.appending(to: &bytes, write)
        ends.append(bytes.count)
    }

    /// Appends a frame of `count` bytes that `write` fills in place (every one of them): a
    /// record made straight into the message, with no array of its own.
    package mutating func appendFrame(count: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBufferPointer { all in
            write(UnsafeMutableBufferPointer(rebasing: all[start..<(start + count)]))
        }
        ends.append(bytes.count)
    }

    /// Removes every frame, keeping the capacity for the next message.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }
}

/// A plain list of frames: the codec's own container, for tests, fuzzing and tools.
package struct WireFrameList: WireFrames, WireFrameWriter, Equatable, Sendable {
    /// The frames, in order.
    package var frames: [[UInt8]]

    /// A list of the given frames.
    package init(_ frames: [[UInt8]] = []) { self.frames = frames }

    package var count: Int { frames.count }
    package func frame(at index: Int) -> ArraySlice<UInt8> { frames[index][...] }
    package mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        frames.append(Array(bytes))
    }
    package mutating func append(_ text: String) { frames.append(Array(text.utf8)) }
    package mutating func appendEmpty() { frames.append([]) }
}
