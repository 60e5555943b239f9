/// The JSON form of an outcome, as Majordomo clients receive it and `actionbus perform --json`
/// prints it:
///
/// ```json
/// {"request":"c1:7","action":"Echo.say","session":"","outcome":"success",
///  "output":{"text":"hi"},"worker":"host-42","closeActionStack":false}
/// ```
///
/// A failure carries `"error":{"code":...,"message":...}` instead of `output`. JSON outputs are
/// embedded as they are; other content types are embedded as a string. A nested perform (an
/// action an action performed on its worker) adds `"nested":true`, and an outcome of a session
/// that is not user-initiated `"userInitiated":false`.
package enum OutcomeJSON {
    /// The outcome as one line of JSON, with `sequence` and `position` when it came from the stream.
    ///
    /// Made twice over: once to measure it, once to write it into an array of exactly that size.
    /// The coordinator makes one per Majordomo reply and every stream subscriber one per event:
    /// appended piece by piece (a key, its quotes, its colon, each an append), it was a sixth of
    /// a subscriber's CPU.
    package static func encode(_ outcome: WireOutcome, sequence: UInt64? = nil, position: UInt64? = nil) -> [UInt8] {
        var size = JSONSize()
        write(outcome, sequence: sequence, position: position, into: &size)
        return [UInt8](unsafeUninitializedCapacity: size.count) { buffer, initialized in
            var writer = JSONWriter(buffer)
            write(outcome, sequence: sequence, position: position, into: &writer)
            initialized = writer.count
        }
    }

    /// A bare error object, for replies that are not an outcome.
    package static func encodeError(code: String, message: String) -> [UInt8] {
        var size = JSONSize()
        size.raw("{")
        writeFailure(code: code, message: message, into: &size)
        size.raw("}")
        return [UInt8](unsafeUninitializedCapacity: size.count) { buffer, initialized in
            var writer = JSONWriter(buffer)
            writer.raw("{")
            writeFailure(code: code, message: message, into: &writer)
            writer.raw("}")
            initialized = writer.count
        }
    }

    private static func write(_ outcome: WireOutcome, sequence: UInt64?, position: UInt64?, into json: inout some JSONSink) {
        json.raw(#"{"request":""#)
        json.escaped(outcome.requestID)
        json.raw(#"","action":""#)
        json.escaped(outcome.action)
        json.raw(#"","session":""#)
        json.escaped(outcome.session)
        json.raw(#"","#)
        // The output read in place: a forwarded outcome's lies in its record (`result` would
        // copy it out).
        let wroteSuccess = outcome.withSuccessOutput { contentType, output in
            writeSuccess(contentType: contentType, output: output, into: &json)
        } != nil
        if !wroteSuccess, case .failure(let code, let message) = outcome.result {
            writeFailure(code: code, message: message, into: &json)
        }
        json.raw(#","worker":""#)
        json.escaped(outcome.worker)
        json.raw(outcome.closeActionStack ? #"","closeActionStack":true"# : #"","closeActionStack":false"#)
        if outcome.nested { json.raw(#","nested":true"#) }
        if !outcome.userInitiated { json.raw(#","userInitiated":false"#) }
        if let sequence {
            json.raw(#","sequence":"#)
            json.escaped(String(sequence))
        }
        if let position {
            json.raw(#","position":"#)
            json.escaped(String(position))
        }
        json.raw("}")
    }

    /// `"outcome":"success","output":...`: JSON as it is, anything else as a string.
    private static func writeSuccess(contentType: String, output: UnsafeRawBufferPointer, into json: inout some JSONSink) {
        json.raw(#""outcome":"success","output":"#)
        if contentType == WireRequest.json, !output.isEmpty {
            json.raw(output)
        } else {
            // As a String: bytes that are not UTF-8 are repaired, as a JSON string needs.
            json.raw(#"""#)
            json.escaped(String(decoding: output, as: UTF8.self))
            json.raw(#"""#)
        }
    }

    /// `"outcome":"failure","error":{"code":...,"message":...}`
    private static func writeFailure(code: String, message: String, into json: inout some JSONSink) {
        json.raw(#""outcome":"failure","error":{"code":""#)
        json.escaped(code)
        json.raw(#"","message":""#)
        json.escaped(message)
        json.raw(#""}"#)
    }
}

/// Where ``OutcomeJSON`` puts a line: its measure, or its bytes. Both take it as the same raw
/// pieces (``escaped(_:)`` included), so a line's measure is its length by construction.
private protocol JSONSink {
    /// Bytes as they are.
    mutating func raw(_ bytes: UnsafeRawBufferPointer)
}

extension JSONSink {
    mutating func raw(_ text: StaticString) {
        raw(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func escaped(_ string: String) {
        var string = string
        // Native strings are contiguous UTF-8: escaped in place, without a copy.
        string.withUTF8 { escaped(UnsafeRawBufferPointer($0)) }
    }

    /// UTF-8 as the contents of a JSON string: `"`, `\`, and ASCII below 0x20 escaped (`\n`, `\r`,
    /// `\t`, else `\u00xx`), every other byte as it is; runs that need no escape go whole.
    mutating func escaped(_ utf8: UnsafeRawBufferPointer) {
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            raw(UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
            switch byte {
            case 0x22: raw(#"\""#)
            case 0x5C: raw(#"\\"#)
            case 0x0A: raw(#"\n"#)
            case 0x0D: raw(#"\r"#)
            case 0x09: raw(#"\t"#)
            default:
                raw(#"\u00"#)
                withUnsafeBytes(of: (HexText.digit(byte >> 4), HexText.digit(byte & 0xF))) { raw($0) }
            }
            runStart = index + 1
        }
        raw(UnsafeRawBufferPointer(rebasing: utf8[runStart...]))
    }
}

/// Counts the bytes a line takes.
private struct JSONSize: JSONSink {
    var count = 0

    mutating func raw(_ bytes: UnsafeRawBufferPointer) { count += bytes.count }
}

/// Writes a line into a buffer that ``JSONSize`` measured.
private struct JSONWriter: JSONSink {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(count + bytes.count <= buffer.count, "an outcome's JSON outgrew its measure")
        (buffer.baseAddress! + count).initialize(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }
}
