/// A request already in its wire form: one packed record (``PackedRecord``), as a REQUEST
/// carries it.
///
/// The coordinator holds queued requests as bytes and sends them to workers as bytes, so a
/// request it forwards is never taken apart into `String`s and arrays and put back together.
/// Only the coordinator makes these, from fields it checked when it accepted the request.
package struct PackedRequest: Sendable, Hashable {
    /// The record: each field a 4-byte big-endian length and its bytes, in ``WireRequest``'s
    /// field order.
    package let record: [UInt8]
    /// How many fields it has: ``WireRequest/frameCount``, and one more with its flags.
    package let fieldCount: Int

    /// Wraps a record in ``WireRequest``'s field order (the caller made it so) of `fieldCount` fields.
    package init(record: [UInt8], fieldCount: Int = WireRequest.frameCount) {
        self.record = record
        self.fieldCount = fieldCount
    }

    /// The request as a ``WireRequest``, for a peer that needs one (an MDP worker), or `nil`
    /// when the record does not decode.
    package var request: WireRequest? {
        var limits = WireLimits(maxBodyBytes: .max)
        limits.maxNameBytes = .max
        return try? WireRequest.unpack(record[...], command: .request, limits: limits)
    }

    /// The input: the record's sixth field, read in place (empty when the record is short,
    /// which a record the coordinator made never is).
    package var input: ArraySlice<UInt8> {
        var offset = 0
        for _ in 0..<5 {
            guard offset + 4 <= record.count else { return [] }
            offset += 4 + Int(record[...].bigEndianInteger(at: offset, as: UInt32.self))
        }
        guard offset + 4 <= record.count else { return [] }
        let count = Int(record[...].bigEndianInteger(at: offset, as: UInt32.self))
        guard offset + 4 + count <= record.count else { return [] }
        return record[(offset + 4)..<(offset + 4 + count)]
    }

    /// The request id: the record's first field.
    package var requestID: String {
        guard record.count >= 4 else { return "" }
        let count = Int(record[...].bigEndianInteger(at: 0, as: UInt32.self))
        return String(decoding: record[4..<min(record.count, 4 + count)], as: UTF8.self)
    }
}
