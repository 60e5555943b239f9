/// A reusable buffer for the frames of one multipart message.
///
/// All frames live back to back in one byte array, so receiving into a `Multipart` that is
/// reused (``removeAll()`` keeps capacity) allocates nothing per frame once it has grown.
package struct Multipart: Sendable, Equatable, CustomStringConvertible {
    private var storage: [UInt8] = []
    private var ends: [Int] = []

    /// An empty message.
    package init() {}

    /// A message laid out as ``layout`` describes: every frame's bytes in `bytes`, frame `i`
    /// ending at `ends[i]` (ascending, the last at most `bytes.count`). Shares both arrays.
    package init(bytes: [UInt8], ends: [Int]) {
        precondition(ends.last.map { $0 <= bytes.count } ?? true, "frame ends past the bytes")
        storage = bytes
        self.ends = ends
    }

    /// A message of the given frames.
    package init(_ frames: [[UInt8]]) {
        for frame in frames { append(frame) }
    }

    /// A message of UTF-8 text frames.
    package init(strings frames: [String]) {
        for frame in frames { append(frame) }
    }

    /// The number of frames.
    package var count: Int { ends.count }

    /// Whether the message has no frames.
    package var isEmpty: Bool { ends.isEmpty }

    /// The total number of bytes in all frames.
    package var byteCount: Int { storage.count }

    /// The bytes of frame `index`, sharing this buffer's storage.
    package subscript(index: Int) -> ArraySlice<UInt8> {
        storage[range(of: index)]
    }

    /// The range of frame `index` within the contiguous storage.
    package func range(of index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1])..<ends[index]
    }

    /// Calls `body` with frame `index`'s bytes, valid only inside the call.
    package func withFrame<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let range = range(of: index)
        return try storage.withUnsafeBytes { all in
            try body(UnsafeRawBufferPointer(rebasing: all[range]))
        }
    }

    /// Frame `index` decoded as UTF-8, repairing invalid sequences.
    package func string(at index: Int) -> String {
        withFrame(index) { String(decoding: $0, as: UTF8.self) }
    }

    /// All frames as separate arrays (allocates: for tests and diagnostics).
    package var frames: [[UInt8]] { (0..<count).map { Array(self[$0]) } }

    /// Appends a frame.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        storage.append(contentsOf: bytes)
        ends.append(storage.count)
    }

    /// Appends a frame.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        storage.append(contentsOf: bytes)
        ends.append(storage.count)
    }

    /// Appends a frame of UTF-8 text.
    package mutating func append(_ text: String) {
        storage.append(contentsOf: text.utf8)
        ends.append(storage.count)
    }

    /// Appends an empty frame (a delimiter).
    package mutating func appendEmpty() {
        ends.append(storage.count)
    }

    /// Removes the first `k` frames (for example a ROUTER's routing-id envelope).
    package mutating func removeFirst(_ k: Int) {
        guard k > 0 else { return }
        let cut = ends[k - 1]
        storage.removeFirst(cut)
        ends.removeFirst(k)
        for i in ends.indices { ends[i] -= cut }
    }

    /// Every frame's bytes in one buffer, and where each frame ends in it: the message as it is
    /// held, shared (no bytes are copied), for a codec that reads that layout directly.
    package var layout: (bytes: [UInt8], ends: [Int]) { (storage, ends) }

    /// Removes every frame, keeping the capacity for the next message.
    package mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    package var description: String {
        let shown = (0..<count).map { index -> String in
            let frame = self[index]
            if frame.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) { return "\"\(String(decoding: frame, as: UTF8.self))\"" }
            return "0x" + frame.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        }
        return "[\(shown.joined(separator: ", "))]"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
