import ActionWire
import Foundation

/// The journal's byte layout.
///
/// A record is `length (u32) · crc32 of body (u32) · body`, big-endian. The body is a kind byte
/// (`A` accepted, `F` finished, `O` finished and published, `P` published only, `H` the
/// stream's head, `D` a worker died holding it, `S` the feature switches, `K` the known
/// actions), a frame count (u16) and that many `length (u32) · bytes` frames: the request's or
/// outcome's wire fields, and for `A` a last frame with the deadline in milliseconds since 1970
/// (u64); for `O` and `P` a first frame with the position (u64) and the time published
/// (milliseconds since 1970, u64) before the outcome's fields; for `H` the position (u64); for
/// `D` the request id; for `W` one worker name per frame; for `S` a feature name and a state
/// byte per switch, as SWITCHES carries them; for `K` an action name and since when it is
/// unserved (milliseconds since 1970, u64; 0 while served) per action.
extension JournalRecord {
    /// The largest record body the reader believes (a request or outcome is at most the
    /// coordinator's message limit); a larger length means a damaged file.
    static let maxBodyBytes = 1 << 30

    /// Appends the whole record (length, checksum and body) to `buffer`, writing the fields in
    /// place (this runs for every accepted request and every outcome).
    func append(to buffer: inout [UInt8]) {
        Self.appendRecord(kind: kind, to: &buffer) { writer in
            switch self {
            // Packed by ActionWire, where its encoder is specialised (encoding into this
            // module's writer ran it unspecialised, a generic call per field), straight into
            // the journal's buffer.
            case .accepted(let request, let deadline):
                writer.appendPacked { request.appendPacked(to: &$0) }
                Self.appendDeadline(deadline, to: &writer)
            // The request's wire fields, already written as `length (u32) · bytes` frames.
            case .acceptedPacked(let packed, let deadline):
                writer.appendFrames(packed.record, count: packed.fieldCount)
                Self.appendDeadline(deadline, to: &writer)
            case .finished(let outcome):
                writer.appendPacked { outcome.appendPacked(to: &$0) }
            case .published(let outcome, let position, let publishedAt, _):
                var stamp = (position.bigEndian, publishedAt.bigEndian)
                withUnsafeBytes(of: &stamp) { writer.append($0) }
                writer.appendPacked { outcome.appendPacked(to: &$0) }
            case .streamHead(let position):
                withUnsafeBytes(of: position.bigEndian) { writer.append($0) }
            case .workerDied(let requestID):
                writer.append(requestID)
            case .featureSwitches(let switches):
                FeatureSwitch.encode(switches, into: &writer)
            case .workers(let names):
                for name in names { writer.append(name) }
            case .knownActions(let actions):
                for (action, unservedSince) in actions.sorted(by: { $0.key < $1.key }) {
                    writer.append(action)
                    let milliseconds = unservedSince.map { Self.milliseconds($0) } ?? 0
                    withUnsafeBytes(of: milliseconds.bigEndian) { writer.append($0) }
                }
            }
        }
    }

    /// Appends length, checksum and a body of `kind`, a frame count and the frames `body` writes.
    private static func appendRecord(kind: UInt8, to buffer: inout [UInt8], body: (inout JournalFrameWriter) -> Void) {
        let recordStart = buffer.count
        var writer = JournalFrameWriter(bytes: [])
        swap(&writer.bytes, &buffer)
        writer.bytes.appendBigEndian(UInt32(0))  // body length, filled in below
        writer.bytes.appendBigEndian(UInt32(0))  // body checksum, filled in below
        let bodyStart = writer.bytes.count
        writer.bytes.append(kind)
        writer.bytes.appendBigEndian(UInt16(0))  // frame count, filled in below
        body(&writer)
        writer.bytes.storeBigEndian(UInt16(writer.frameCount), at: bodyStart + 1)
        // Measured before the stores, so no slice is alive while the buffer changes (no copy).
        let bodyLength = UInt32(writer.bytes.count - bodyStart)
        let checksum = CRC32.checksum(writer.bytes[bodyStart...])
        writer.bytes.storeBigEndian(bodyLength, at: recordStart)
        writer.bytes.storeBigEndian(checksum, at: recordStart + 4)
        swap(&writer.bytes, &buffer)
    }

    /// An `A` record's last frame: the deadline in milliseconds since 1970 (u64).
    private static func appendDeadline(_ deadline: Date, to writer: inout JournalFrameWriter) {
        withUnsafeBytes(of: milliseconds(deadline).bigEndian) { writer.append($0) }
    }

    /// `date` in milliseconds since 1970, rounded up, at least 1.
    private static func milliseconds(_ date: Date) -> UInt64 {
        // Clamped in Double first: a date centuries away must not trap the conversion.
        UInt64(min(max(1, (date.timeIntervalSince1970 * 1000).rounded(.up)), 9e15))
    }

    private static func date(milliseconds frame: ArraySlice<UInt8>) -> Date {
        Date(timeIntervalSince1970: Double(uint64(frame, at: 0)) / 1000)
    }

    private static func uint64<Bytes: RandomAccessCollection>(_ frame: Bytes, at offset: Int) -> UInt64
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let start = frame.startIndex + offset
        return UInt64(UInt32(bigEndian: frame, at: start)) << 32 | UInt64(UInt32(bigEndian: frame, at: start + 4))
    }

    private var kind: UInt8 {
        switch self {
        case .accepted, .acceptedPacked: UInt8(ascii: "A")
        case .finished: UInt8(ascii: "F")
        case .published(_, _, _, let finishesRequest): finishesRequest ? UInt8(ascii: "O") : UInt8(ascii: "P")
        case .streamHead: UInt8(ascii: "H")
        case .workerDied: UInt8(ascii: "D")
        case .featureSwitches: UInt8(ascii: "S")
        case .knownActions: UInt8(ascii: "K")
        case .workers: UInt8(ascii: "W")
        }
    }

    /// What the bytes at an offset of the journal hold.
    enum ReadResult {
        /// A whole record, and the offset after it.
        case record(JournalRecord, next: Int)
        /// A whole record, exactly as written (its checksum holds), whose fields do not decode:
        /// a coordinator once journaled what the wire rules reject. It is skipped, not damage.
        case invalid(next: Int)
        /// Not a whole, intact record: the torn tail of a crash, or damage.
        case notIntact
    }

    /// Reads the record at `offset`.
    static func read(from bytes: [UInt8], at offset: Int) -> ReadResult {
        guard bytes.count - offset >= 8 else { return .notIntact }
        let length = Int(UInt32(bigEndian: bytes, at: offset))
        let checksum = UInt32(bigEndian: bytes, at: offset + 4)
        let start = offset + 8
        guard length > 0, length <= maxBodyBytes, bytes.count - start >= length else { return .notIntact }
        let body = bytes[start..<start + length]
        guard CRC32.checksum(body) == checksum else { return .notIntact }
        guard let record = decodeBody(body) else { return .invalid(next: start + length) }
        return .record(record, next: start + length)
    }

    /// Whether the bytes from `offset` to the end can be what a crash leaves of one record
    /// being appended: too short for its header, a record whose stated length reaches (or
    /// passes) the end of the file, or only zeros (a file extended before a power loss, whose
    /// data never reached the disk). Anything else is damage in the middle of the journal.
    static func isTornEnd(_ bytes: [UInt8], at offset: Int) -> Bool {
        guard bytes.count - offset >= 8 else { return true }
        let length = Int(UInt32(bigEndian: bytes, at: offset))
        return offset + 8 + length >= bytes.count || bytes[offset...].allSatisfy { $0 == 0 }
    }

    private static func decodeBody(_ body: ArraySlice<UInt8>) -> JournalRecord? {
        guard body.count >= 3 else { return nil }
        let kind = body[body.startIndex]
        let frameCount = Int(UInt16(body[body.startIndex + 1]) << 8 | UInt16(body[body.startIndex + 2]))
        var frames = FrameSlices()
        frames.slices.reserveCapacity(frameCount)
        var position = body.startIndex + 3
        for _ in 0..<frameCount {
            guard body.endIndex - position >= 4 else { return nil }
            let size = Int(UInt32(bigEndian: body, at: position))
            position += 4
            guard body.endIndex - position >= size else { return nil }
            frames.slices.append(body[position..<position + size])
            position += size
        }
        guard position == body.endIndex else { return nil }
        // Records were checked when they arrived; decode with room for any size they had then.
        let limits = WireLimits(maxBodyBytes: maxBodyBytes)
        switch kind {
        case UInt8(ascii: "A"):
            guard let last = frames.slices.last, last.count == 8 else { return nil }
            frames.slices.removeLast()
            guard let request = try? WireRequest.decode(slices: frames, limits: limits) else { return nil }
            return .accepted(request, deadline: date(milliseconds: last))
        case UInt8(ascii: "F"):
            guard let outcome = try? WireOutcome.decode(slices: frames, limits: limits) else { return nil }
            return .finished(outcome)
        case UInt8(ascii: "O"), UInt8(ascii: "P"):
            guard frames.count > 1, frames.slices[0].count == 16 else { return nil }
            let stamp = frames.slices.removeFirst()
            guard let outcome = try? WireOutcome.decode(slices: frames, limits: limits) else { return nil }
            return .published(
                outcome, position: Self.uint64(stamp, at: 0), publishedAt: Self.uint64(stamp, at: 8),
                finishesRequest: kind == UInt8(ascii: "O")
            )
        case UInt8(ascii: "H"):
            guard frames.count == 1, frames.slices[0].count == 8 else { return nil }
            return .streamHead(Self.uint64(frames.slices[0], at: 0))
        case UInt8(ascii: "W"):
            var names: [String] = []
            for frame in frames.slices {
                guard let name = try? WireName.validate(frame, field: "worker name", limits: limits) else { return nil }
                names.append(name)
            }
            return .workers(names)
        case UInt8(ascii: "D"):
            guard frames.count == 1, let requestID = try? WireName.validate(frames.slices[0], field: "request id", limits: limits) else {
                return nil
            }
            return .workerDied(requestID: requestID)
        case UInt8(ascii: "S"):
            guard let message = try? WorkerInstruction.decode(WireFrameList([WireHeader.bytes(.switches)] + frames.slices.map { Array($0) }), limits: limits),
                  case .switches(let switches) = message else { return nil }
            return .featureSwitches(switches)
        case UInt8(ascii: "K"):
            guard frames.count.isMultiple(of: 2) else { return nil }
            var actions: [String: Date?] = [:]
            for index in stride(from: 0, to: frames.count, by: 2) {
                let since = frames.slices[index + 1]
                guard since.count == 8, let action = try? WireName.validate(frames.slices[index], field: "action", limits: limits) else {
                    return nil
                }
                actions[action] = since.allSatisfy { $0 == 0 } ? .some(nil) : date(milliseconds: since)
            }
            return .knownActions(actions)
        default:
            return nil
        }
    }
}

extension UInt32 {
    init<Bytes: RandomAccessCollection>(bigEndian bytes: Bytes, at offset: Int) where Bytes.Element == UInt8, Bytes.Index == Int {
        self = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
