/// A parsed JSON document, as ``FastJSONDecoder`` reads it: numbers stay as their text, so
/// each is converted once, to the type asked for.
enum JSONValue {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in document order; no name twice (the parser refuses duplicates).
    case object([JSONMember])

    /// Parses RFC 8259 JSON: one value, whitespace around it. `nil` for anything else, and for
    /// what Foundation's decoder might read differently (duplicate member names, nesting deeper
    /// than `maxDepth`), so that the caller can leave those to it.
    static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) -> JSONValue? {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipWhitespace()
        return parser.position == bytes.count ? value : nil
    }
}

/// One member of a JSON object. A struct rather than a tuple: an array of tuples looks up its
/// element's type metadata at run time.
struct JSONMember {
    let key: String
    let value: JSONValue
}

/// A recursive-descent JSON parser over UTF-8 bytes; every method returns `nil` at the first
/// byte it does not accept.
private struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    let maxDepth: Int
    var position = 0

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    mutating func value(depth: Int) -> JSONValue? {
        skipWhitespace()
        guard let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return depth < maxDepth ? object(depth: depth + 1) : nil
        case UInt8(ascii: "["): return depth < maxDepth ? array(depth: depth + 1) : nil
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        default: return number().map(JSONValue.number)
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] { return false }
        position += count
        return true
    }

    private mutating func object(depth: Int) -> JSONValue? {
        var members: [JSONMember] = []
        var closed = open(closing: UInt8(ascii: "}"))
        while !closed {
            skipWhitespace()
            // Names are checked for duplicates and looked up by scanning: past a few dozen
            // members that would grow quadratically, so large objects go to Foundation.
            guard members.count < 32, current == UInt8(ascii: "\""), let key = string() else { return nil }
            // Which of two equal names Foundation keeps is its business: leave such input to it.
            guard !members.contains(where: { $0.key == key }) else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            position += 1
            guard let member = value(depth: depth) else { return nil }
            members.append(JSONMember(key: key, value: member))
            guard let end = next(closing: UInt8(ascii: "}")) else { return nil }
            closed = end
        }
        return .object(members)
    }

    private mutating func array(depth: Int) -> JSONValue? {
        var elements: [JSONValue] = []
        var closed = open(closing: UInt8(ascii: "]"))
        while !closed {
            guard let element = value(depth: depth) else { return nil }
            elements.append(element)
            guard let end = next(closing: UInt8(ascii: "]")) else { return nil }
            closed = end
        }
        return .array(elements)
    }

    /// Steps over a container's opening byte: `true` when `closing` follows at once (an empty
    /// container, consumed), `false` when an item follows.
    private mutating func open(closing: UInt8) -> Bool {
        position += 1
        skipWhitespace()
        guard current == closing else { return false }
        position += 1
        return true
    }

    /// After an item: `true` at `closing` (consumed), `false` after a comma, `nil` at anything else.
    private mutating func next(closing: UInt8) -> Bool? {
        skipWhitespace()
        switch current {
        case UInt8(ascii: ","):
            position += 1
            return false
        case closing:
            position += 1
            return true
        default:
            return nil
        }
    }

    /// A string at `position` (its opening quote); its contents must be valid UTF-8.
    private mutating func string() -> String? {
        position += 1
        let start = position
        var isASCII = true
        // The common case: no escape, so the bytes are the string.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return nil }
            isASCII = isASCII && byte < 0x80
            position += 1
        }
        guard let stop = current else { return nil }
        if stop == UInt8(ascii: "\"") {
            position += 1
            let text = UnsafeRawBufferPointer(rebasing: bytes[start..<(position - 1)])
            // ASCII is valid UTF-8 as it stands: no validation to pay for (nor its generic metadata).
            return isASCII
                ? String(decoding: text.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
                : String(validating: text, as: UTF8.self)
        }
        var unescaped = Array(bytes[start..<position])
        while let byte = current {
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: unescaped, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return nil }
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escaped)
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    unescaped.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            case 0..<0x20:
                return nil
            default:
                unescaped.append(byte)
            }
        }
        return nil
    }

    /// The scalar of a `\u` escape (its `u` just read), joining a surrogate pair; `nil` for a
    /// lone surrogate.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let first = hexQuad() else { return nil }
        switch first {
        case 0xD800..<0xDC00:
            guard literal("\\u"), let second = hexQuad(), (0xDC00..<0xE000).contains(second) else { return nil }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        case 0xDC00..<0xE000:
            return nil
        default:
            return Unicode.Scalar(first)
        }
    }

    private mutating func hexQuad() -> UInt32? {
        guard bytes.count - position >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// A number's text, checked against the JSON grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() -> String? {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { return nil }
        position += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            position += 1
            guard let digit = current, isDigit(digit) else { return nil }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let digit = current, isDigit(digit) else { return nil }
            skipDigits()
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { position += 1 }
    }
}
