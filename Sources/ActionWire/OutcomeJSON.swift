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
public enum OutcomeJSON {
    /// The outcome as one line of JSON, with `sequence` when it came from the stream.
    public static func encode(_ outcome: WireOutcome, sequence: UInt64? = nil) -> [UInt8] {
        // The fields, their names and a little room for escapes: one allocation, as a rule.
        var json = JSONText(capacity: 160 + outcome.byteCount)
        json.open()
        json.field("request", outcome.requestID)
        json.field("action", outcome.action)
        json.field("session", outcome.session)
        // The output read in place: a forwarded outcome's lies in its record.
        if let (contentType, output) = outcome.successOutput {
            json.field("outcome", "success")
            json.key("output")
            if contentType == WireRequest.json, !output.isEmpty {
                json.raw(output)
            } else {
                json.string(String(decoding: output, as: UTF8.self))
            }
        } else if case .failure(let code, let message) = outcome.result {
            writeFailure(code: code, message: message, into: &json)
        }
        json.field("worker", outcome.worker)
        json.key("closeActionStack")
        json.raw((outcome.closeActionStack ? "true" : "false").utf8)
        if outcome.nested {
            json.key("nested")
            json.raw("true".utf8)
        }
        if !outcome.userInitiated {
            json.key("userInitiated")
            json.raw("false".utf8)
        }
        if let sequence {
            json.key("sequence")
            json.raw(String(sequence).utf8)
        }
        json.close()
        return json.bytes
    }

    /// A bare error object, for replies that are not an outcome.
    public static func encodeError(code: String, message: String) -> [UInt8] {
        var json = JSONText()
        json.open()
        writeFailure(code: code, message: message, into: &json)
        json.close()
        return json.bytes
    }

    /// `"outcome":"failure","error":{"code":...,"message":...}`
    private static func writeFailure(code: String, message: String, into json: inout JSONText) {
        json.field("outcome", "failure")
        json.key("error")
        json.open()
        json.field("code", code)
        json.field("message", message)
        json.close()
    }
}

/// A minimal JSON writer: objects, string fields and raw values.
struct JSONText {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func open() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func close() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func key(_ name: String) {
        separate()
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func field(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    mutating func raw(_ value: some Collection<UInt8>) {
        bytes.append(contentsOf: value)
        needsComma = true
    }

    mutating func string(_ value: String) {
        var value = value
        // Native strings are contiguous UTF-8: escaped in place, without a copy.
        value.withUTF8 { appendEscaped($0) }
    }

    /// The bytes as a JSON string: runs that need no escape are copied whole (only ASCII
    /// below 0x20, `"` and `\` need one; every other byte of valid UTF-8 is copied as it is).
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            switch byte {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            default: bytes.append(contentsOf: Array("\\u00".utf8) + Array(HexText.of([byte]).utf8))
            }
            runStart = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}
