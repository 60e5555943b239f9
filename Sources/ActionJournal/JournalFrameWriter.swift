import ActionWire

/// Writes wire fields straight into the journal's buffer as `length (u32) · bytes` frames,
/// counting them, so encoding a record allocates nothing per field.
struct JournalFrameWriter: WireFrameWriter {
    var bytes: [UInt8]
    private(set) var frameCount = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func append<Bytes: Sequence>(_ frame: Bytes) where Bytes.Element == UInt8 {
        let lengthAt = bytes.count
        bytes.appendBigEndian(UInt32(0))
        bytes.append(contentsOf: frame)
        bytes.storeBigEndian(UInt32(bytes.count - lengthAt - 4), at: lengthAt)
        frameCount += 1
    }

    mutating func append(_ text: String) {
        append(text.utf8)
    }

    mutating func appendEmpty() {
        append(EmptyCollection<UInt8>())
    }

    /// Appends the fields of a record ActionWire packs (``PackedRecord``) with `pack`, which
    /// writes them at the buffer's end and returns how many there are: the same
    /// `length (u32) · bytes` framing, so they are written in place and only counted.
    mutating func appendPacked(_ pack: (inout [UInt8]) -> Int) {
        frameCount += pack(&bytes)
    }

    /// Appends `count` frames already written as `length (u32) · bytes` in `frames`.
    mutating func appendFrames(_ frames: [UInt8], count: Int) {
        bytes.append(contentsOf: frames)
        frameCount += count
    }
}

extension [UInt8] {
    /// Appends `value`, most significant byte first.
    mutating func appendBigEndian<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    /// Overwrites the bytes at `offset` with `value`, most significant byte first.
    mutating func storeBigEndian<Value: FixedWidthInteger>(_ value: Value, at offset: Int) {
        Swift.withUnsafeBytes(of: value.bigEndian) { replaceSubrange(offset..<offset + $0.count, with: $0) }
    }
}
