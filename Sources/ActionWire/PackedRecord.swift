/// One request or outcome packed into a single frame: its fields back to back, each a 4-byte
/// big-endian length and that many bytes (the fields ABP/2 sent as separate frames).
///
/// A frame costs libzmq an allocation, a pipe write and an encoder step on each side of every
/// hop, whatever its size; a request used to be six of them and an outcome seven. Packed, a
/// record is one frame and a message carries as many records as are ready.
///
/// The record reads as ``WireFrames``, so the field codec (``FrameReader``) is the same for both.
package struct PackedRecord: WireFrames {
    /// The most fields a record holds (an outcome has 7).
    static let maxFields = 8

    private let bytes: ArraySlice<UInt8>
    /// Where each field ends in `bytes`. The fields lie back to back, so a field starts 4 bytes
    /// (its length) after the end of the one before it, or after the frame's start.
    ///
    /// A tuple read through a switch rather than an `InlineArray`: the array's subscript copied
    /// all its elements to the stack on every read, which was a tenth of decoding a record.
    private var ends: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    package private(set) var count = 0

    /// Splits `frame` into its fields.
    ///
    /// - Throws: ``WireError`` `truncated` when a length runs past the frame, `extraFrames`
    ///   when the frame holds more than ``maxFields`` fields.
    package init(_ frame: ArraySlice<UInt8>, command: WireCommand) throws(WireError) {
        bytes = frame
        var offset = frame.startIndex
        while offset < frame.endIndex {
            guard count < Self.maxFields else {
                throw WireError(.extraFrames, "\(command) record has more than \(Self.maxFields) fields")
            }
            guard frame.endIndex - offset >= 4 else {
                throw WireError(.truncated, "\(command) record ends inside a field length")
            }
            let stated = frame.bigEndianInteger(at: offset - frame.startIndex, as: UInt32.self)
            let start = offset + 4
            guard let length = Int(exactly: stated), length <= frame.endIndex - start else {
                throw WireError(.truncated, "\(command) record field \(count + 1) says \(stated) bytes; \(frame.endIndex - start) remain")
            }
            setEnd(of: count, start + length)
            count += 1
            offset = start + length
        }
    }

    package func frame(at index: Int) -> ArraySlice<UInt8> {
        precondition(index >= 0 && index < count, "field \(index) of a record of \(count)")
        let start = (index == 0 ? bytes.startIndex : end(of: index - 1)) + 4
        return bytes[start..<end(of: index)]
    }

    private func end(of index: Int) -> Int {
        switch index {
        case 0: ends.0
        case 1: ends.1
        case 2: ends.2
        case 3: ends.3
        case 4: ends.4
        case 5: ends.5
        case 6: ends.6
        default: ends.7
        }
    }

    private mutating func setEnd(of index: Int, _ end: Int) {
        switch index {
        case 0: ends.0 = end
        case 1: ends.1 = end
        case 2: ends.2 = end
        case 3: ends.3 = end
        case 4: ends.4 = end
        case 5: ends.5 = end
        case 6: ends.6 = end
        default: ends.7 = end
        }
    }

    /// Reads one record with `read`, which must take every field.
    static func read<Record>(
        _ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits,
        _ read: (inout FrameReader<PackedRecord>) throws(WireError) -> Record
    ) throws(WireError) -> Record {
        var reader = FrameReader(try PackedRecord(frame, command: command), at: 0, limits: limits, command: command)
        let record = try read(&reader)
        try reader.end()
        return record
    }
}

/// Builds one packed record: each field appended is written as its length and its bytes.
struct PackedRecordWriter: WireFrameWriter {
    /// The record's bytes; a message's buffer swapped in to write the record at its end.
    var bytes: [UInt8] = []
    /// How many fields it wrote.
    private(set) var fieldCount = 0

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Lends `buffer` to a writer that `write` appends one record with, at the buffer's end:
    /// no array of the record's own, copied in and freed again. Returns the record's field count.
    @discardableResult
    static func appending(to buffer: inout [UInt8], _ write: (inout PackedRecordWriter) -> Void) -> Int {
        var writer = PackedRecordWriter(capacity: 0)
        swap(&buffer, &writer.bytes)
        write(&writer)
        swap(&buffer, &writer.bytes)
        return writer.fieldCount
    }

    mutating func append<Bytes: Sequence>(_ field: Bytes) where Bytes.Element == UInt8 {
        let lengthAt = bytes.count
        bytes.append(contentsOf: [0, 0, 0, 0])
        bytes.append(contentsOf: field)
        storeLength(bytes.count - lengthAt - 4, at: lengthAt)
        fieldCount += 1
    }

    mutating func append(_ text: String) {
        append(text.utf8)
    }

    mutating func appendEmpty() {
        bytes.append(contentsOf: [0, 0, 0, 0])
        fieldCount += 1
    }

    /// Appends the fields of `outcome`: its record's bytes as they are when it has one.
    mutating func appendFields(of outcome: WireOutcome) {
        if outcome.withRecord({ bytes.append(contentsOf: $0) }) != nil {
            fieldCount += WireOutcome.frameCount
        } else {
            outcome.encode(into: &self)
        }
    }

    private mutating func storeLength(_ length: Int, at index: Int) {
        bytes[index] = UInt8(truncatingIfNeeded: length >> 24)
        bytes[index + 1] = UInt8(truncatingIfNeeded: length >> 16)
        bytes[index + 2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[index + 3] = UInt8(truncatingIfNeeded: length)
    }
}

extension WireRequest {
    /// The request as one packed record frame.
    package var packed: [UInt8] {
        var writer = PackedRecordWriter(capacity: 24 + requestID.utf8.count + action.utf8.count + session.utf8.count + 4
                                        + contentType.utf8.count + input.count + 8)
        encode(into: &writer)
        return writer.bytes
    }

    /// Appends the request as one packed record to `buffer` (a journal's, say), written in
    /// place; returns how many fields it has.
    package func appendPacked(to buffer: inout [UInt8]) -> Int {
        PackedRecordWriter.appending(to: &buffer) { encode(into: &$0) }
    }

    /// The identity (request id, action, session) of a request record that does not decode as
    /// a whole (an input over the limit, say), so that it can be answered; `nil` when even
    /// those fields are not valid names.
    package static func unpackIdentity(_ frame: ArraySlice<UInt8>) -> WireRequest? {
        guard let record = try? PackedRecord(frame, command: .request), record.count >= 3,
              let requestID = try? WireName.validate(record.frame(at: 0), field: "request id"),
              let action = try? WireName.validate(record.frame(at: 1), field: "action"),
              let session = try? WireName.validate(record.frame(at: 2), field: "session", allowEmpty: true) else { return nil }
        return WireRequest(requestID: requestID, action: action, session: session, input: [])
    }

    /// Decodes a packed request record.
    package static func unpack(_ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits) throws(WireError) -> WireRequest {
        try PackedRecord.read(frame, command: command, limits: limits) { (reader) throws(WireError) in try WireRequest(reading: &reader) }
    }

    /// Decodes a packed request record, checked as ``unpack(_:command:limits:)`` checks it, but
    /// leaves its input in `frame`: the request's `input` is empty and the input is returned
    /// beside it. For a reader that uses the input where it lies at once (the coordinator copies
    /// it into its pending request; a worker decodes it as the perform starts) and so need not
    /// make an array of it first.
    package static func unpackLeavingInput(
        _ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits
    ) throws(WireError) -> (request: WireRequest, input: ArraySlice<UInt8>) {
        var names = RepeatedNames()
        return try unpackLeavingInput(frame, command: command, limits: limits, names: &names)
    }

    /// ``unpackLeavingInput(_:command:limits:)`` for one of a message's records, in turn: an
    /// action or session equal to the one `names` remembers from the record before is taken
    /// from it.
    package static func unpackLeavingInput(
        _ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits, names: inout RepeatedNames
    ) throws(WireError) -> (request: WireRequest, input: ArraySlice<UInt8>) {
        try PackedRecord.read(frame, command: command, limits: limits) { (reader) throws(WireError) in
            try WireRequest.read(&reader, names: &names)
        }
    }
}

extension WireOutcome {
    /// The outcome as one packed record frame.
    package var packed: [UInt8] {
        if let record { return record }
        var writer = PackedRecordWriter(capacity: 30 + byteCount)
        encode(into: &writer)
        return writer.bytes
    }

    /// Appends the outcome as one packed record to `buffer` (a journal's, say), written in
    /// place; returns how many fields it has.
    package func appendPacked(to buffer: inout [UInt8]) -> Int {
        PackedRecordWriter.appending(to: &buffer) { $0.appendFields(of: self) }
    }

    /// Decodes a packed outcome record.
    package static func unpack(_ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits) throws(WireError) -> WireOutcome {
        try PackedRecord.read(frame, command: command, limits: limits) { (reader) throws(WireError) in try WireOutcome(reading: &reader) }
    }
}

extension FrameReader {
    /// The remaining frames, each one packed record: at least one, at most the limit.
    mutating func records<Record>(
        _ unpack: (ArraySlice<UInt8>, WireCommand, WireLimits) throws(WireError) -> Record
    ) throws(WireError) -> [Record] {
        guard remaining >= 1 else { throw WireError(.truncated, "\(command) carries no record") }
        guard remaining <= limits.maxRecordsPerMessage else {
            throw WireError(.oversize, "\(command) carries \(remaining) records, limit \(limits.maxRecordsPerMessage)")
        }
        var records: [Record] = []
        records.reserveCapacity(remaining)
        while remaining > 0 {
            let frame = try next("record")
            records.append(try unpack(frame, command, limits))
        }
        return records
    }
}
