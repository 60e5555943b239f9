import Foundation

/// An `Encoder` for the common case of an action's output, writing the same bytes as
/// `JSONCoders.encoder` (Foundation's `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes`) at a fraction of its cost: a worker encodes one output per request.
///
/// Like ``FastJSONDecoder`` it never decides anything Foundation's encoder might decide
/// otherwise: it returns `nil` for floating-point numbers (Foundation formats them by its own
/// rules), the types `JSONEncoder` encodes by its own rules (`Data`, `Date`, `URL`, `Decimal`),
/// a key written twice in one object, a value that encodes nothing, a super-encoder, and any
/// error thrown during the encode. The caller then encodes with `JSONEncoder`.
@usableFromInline
enum FastJSONEncoder {
    /// Inlinable, so that `T`'s `encode(to:)` is specialised and inlined where `T` is known.
    @inlinable
    static func encode<T: Encodable>(_ value: T) -> [UInt8]? {
        guard !FastJSON.isSpecial(T.self) else { return nil }
        return write { encoder in try value.encode(to: encoder) }
    }

    /// Runs `encode` with an encoder and returns the JSON it wrote: `nil` when `encode` threw,
    /// anything in it gave up, or nothing was encoded.
    @usableFromInline
    static func write(_ encode: (any Encoder) throws -> Void) -> [UInt8]? {
        let encoder = ValueEncoder(state: nil, codingPath: [])
        do {
            try encode(encoder)
        } catch {
            return nil
        }
        guard !encoder.gaveUp, let node = encoder.node else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        guard node.write(into: &bytes) else { return nil }
        return bytes
    }

    /// What has been encoded: containers are objects, so that a container handed out earlier
    /// keeps writing into the same place.
    enum Node {
        case null
        case bool(Bool)
        case integer(String)
        case string(String)
        case object(ObjectNode)
        case array(ArrayNode)

        /// Writes the node as `JSONEncoder` would; `false` for what it would write otherwise
        /// (a key twice in one object).
        func write(into bytes: inout [UInt8], depth: Int = 0) -> Bool {
            // JSONEncoder refuses nesting as deep as 512.
            guard depth < 500 else { return false }
            switch self {
            case .null: bytes.append(contentsOf: "null".utf8)
            case .bool(let bool): bytes.append(contentsOf: (bool ? "true" : "false").utf8)
            case .integer(let text): bytes.append(contentsOf: text.utf8)
            case .string(let string): Self.writeString(string, into: &bytes)
            case .array(let array):
                bytes.append(UInt8(ascii: "["))
                for (index, element) in array.elements.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    guard element.write(into: &bytes, depth: depth + 1) else { return false }
                }
                bytes.append(UInt8(ascii: "]"))
            case .object(let object):
                if object.more.isEmpty {
                    bytes.append(UInt8(ascii: "{"))
                    if let only = object.first {
                        Self.writeString(only.key, into: &bytes)
                        bytes.append(UInt8(ascii: ":"))
                        guard only.value.write(into: &bytes, depth: depth + 1) else { return false }
                    }
                    bytes.append(UInt8(ascii: "}"))
                    return true
                }
                // `.sortedKeys` on Linux: by the keys' UTF-8 bytes.
                let members = object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                // Keys equal as Strings (canonically equivalent) are one key in Foundation's table.
                if members.count > 1, Set(members.map(\.key)).count != members.count { return false }
                bytes.append(UInt8(ascii: "{"))
                for (index, member) in members.enumerated() {
                    if index > 0 {
                        guard member.key != members[index - 1].key else { return false }
                        bytes.append(UInt8(ascii: ","))
                    }
                    Self.writeString(member.key, into: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    guard member.value.write(into: &bytes, depth: depth + 1) else { return false }
                }
                bytes.append(UInt8(ascii: "}"))
            }
            return true
        }

        /// A string with `JSONEncoder`'s escapes (slashes left alone, as `.withoutEscapingSlashes`
        /// asks): quote, backslash, the short forms of five control characters, `\u00xx` (lower
        /// case) for the other control characters, everything else as it is.
        private static let hexDigits = Array("0123456789abcdef".utf8)

        static func writeString(_ string: String, into bytes: inout [UInt8]) {
            bytes.append(UInt8(ascii: "\""))
            // Most strings need no escape: copied whole, not appended byte by byte.
            let copiedWhole = string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
                guard utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else { return false }
                bytes.append(contentsOf: utf8)
                return true
            }
            if copiedWhole == true {
                bytes.append(UInt8(ascii: "\""))
                return
            }
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x00..<0x20:
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0x0F)])
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// An object's members in the order they were encoded. A struct rather than a tuple: an
    /// array of tuples looks up its element's type metadata at run time.
    struct Member {
        let key: String
        let value: Node
    }

    /// An object's members; the first has a place of its own, so that an object of one member
    /// (most actions' output) makes no array.
    final class ObjectNode {
        private(set) var first: Member?
        private(set) var more: [Member] = []

        var members: [Member] { first.map { [$0] + more } ?? [] }

        func add(_ member: Member) {
            if first == nil { first = member } else { more.append(member) }
        }
    }

    final class ArrayNode {
        var elements: [Node] = []
    }

    /// An encoder for one value: what it encodes becomes its `node`.
    final class ValueEncoder: FastJSON.Attempt, Encoder, SingleValueEncodingContainer {
        private let rootState: FastJSON.Attempt?
        /// The attempt this encoder is part of: its root's, or its own at the root.
        var state: FastJSON.Attempt { rootState ?? self }
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        private(set) var node: Node?

        /// An encoder of one value; `state` `nil` makes it the root of an attempt.
        init(state: FastJSON.Attempt?, codingPath: [any CodingKey]) {
            self.rootState = state
            self.codingPath = codingPath
        }

        func giveUp() -> FastJSON.GaveUp {
            state.gaveUp = true
            return FastJSON.GaveUp()
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let object: ObjectNode
            switch node {
            case .object(let existing): object = existing
            case nil:
                object = ObjectNode()
                node = .object(object)
            default:
                // Foundation would stop here; this encode's result is not used.
                state.gaveUp = true
                object = ObjectNode()
            }
            return KeyedEncodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath, state: state))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let array: ArrayNode
            switch node {
            case .array(let existing): array = existing
            case nil:
                array = ArrayNode()
                node = .array(array)
            default:
                state.gaveUp = true
                array = ArrayNode()
            }
            return UnkeyedContainer(array: array, codingPath: codingPath, state: state)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { self }

        // MARK: Single value

        private func set(_ value: Node) throws {
            guard node == nil else { throw giveUp() }
            node = value
        }

        func encodeNil() throws { try set(.null) }
        func encode(_ value: Bool) throws { try set(.bool(value)) }
        func encode(_ value: String) throws { try set(.string(value)) }
        func encode(_ value: Double) throws { throw giveUp() }
        func encode(_ value: Float) throws { throw giveUp() }
        func encode(_ value: Int) throws { try set(.integer(String(value))) }
        func encode(_ value: Int8) throws { try set(.integer(String(value))) }
        func encode(_ value: Int16) throws { try set(.integer(String(value))) }
        func encode(_ value: Int32) throws { try set(.integer(String(value))) }
        func encode(_ value: Int64) throws { try set(.integer(String(value))) }
        func encode(_ value: UInt) throws { try set(.integer(String(value))) }
        func encode(_ value: UInt8) throws { try set(.integer(String(value))) }
        func encode(_ value: UInt16) throws { try set(.integer(String(value))) }
        func encode(_ value: UInt32) throws { try set(.integer(String(value))) }
        func encode(_ value: UInt64) throws { try set(.integer(String(value))) }
        func encode(_ value: Int128) throws { throw giveUp() }
        func encode(_ value: UInt128) throws { throw giveUp() }

        func encode<T: Encodable>(_ value: T) throws {
            guard node == nil else { throw giveUp() }
            try set(try FastJSONEncoder.node(for: value, state: state, codingPath: codingPath))
        }
    }

    /// The node `value` encodes to, through an encoder of its own.
    static func node<T: Encodable>(for value: T, state: FastJSON.Attempt, codingPath: [any CodingKey]) throws -> Node {
        guard !FastJSON.isSpecial(T.self) else {
            state.gaveUp = true
            throw FastJSON.GaveUp()
        }
        let encoder = ValueEncoder(state: state, codingPath: codingPath)
        try value.encode(to: encoder)
        // A value that encodes nothing: Foundation writes something of its own for it.
        guard let node = encoder.node else {
            state.gaveUp = true
            throw FastJSON.GaveUp()
        }
        return node
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let object: ObjectNode
        let codingPath: [any CodingKey]
        let state: FastJSON.Attempt

        private func giveUp() -> FastJSON.GaveUp {
            state.gaveUp = true
            return FastJSON.GaveUp()
        }

        private func add(_ value: Node, _ key: Key) { object.add(Member(key: key.stringValue, value: value)) }

        mutating func encodeNil(forKey key: Key) throws { add(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { add(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { add(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { throw giveUp() }
        mutating func encode(_ value: Float, forKey key: Key) throws { throw giveUp() }
        mutating func encode(_ value: Int, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { add(.integer(String(value)), key) }
        mutating func encode(_ value: Int128, forKey key: Key) throws { throw giveUp() }
        mutating func encode(_ value: UInt128, forKey key: Key) throws { throw giveUp() }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            add(try FastJSONEncoder.node(for: value, state: state, codingPath: codingPath + [key]), key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectNode()
            add(.object(nested), key)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: nested, codingPath: codingPath + [key], state: state))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = ArrayNode()
            add(.array(nested), key)
            return UnkeyedContainer(array: nested, codingPath: codingPath + [key], state: state)
        }

        mutating func superEncoder() -> any Encoder {
            state.gaveUp = true
            return ValueEncoder(state: state, codingPath: codingPath)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            state.gaveUp = true
            return ValueEncoder(state: state, codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let array: ArrayNode
        let codingPath: [any CodingKey]
        let state: FastJSON.Attempt

        var count: Int { array.elements.count }

        private func giveUp() -> FastJSON.GaveUp {
            state.gaveUp = true
            return FastJSON.GaveUp()
        }

        private func add(_ value: Node) { array.elements.append(value) }

        mutating func encodeNil() throws { add(.null) }
        mutating func encode(_ value: Bool) throws { add(.bool(value)) }
        mutating func encode(_ value: String) throws { add(.string(value)) }
        mutating func encode(_ value: Double) throws { throw giveUp() }
        mutating func encode(_ value: Float) throws { throw giveUp() }
        mutating func encode(_ value: Int) throws { add(.integer(String(value))) }
        mutating func encode(_ value: Int8) throws { add(.integer(String(value))) }
        mutating func encode(_ value: Int16) throws { add(.integer(String(value))) }
        mutating func encode(_ value: Int32) throws { add(.integer(String(value))) }
        mutating func encode(_ value: Int64) throws { add(.integer(String(value))) }
        mutating func encode(_ value: UInt) throws { add(.integer(String(value))) }
        mutating func encode(_ value: UInt8) throws { add(.integer(String(value))) }
        mutating func encode(_ value: UInt16) throws { add(.integer(String(value))) }
        mutating func encode(_ value: UInt32) throws { add(.integer(String(value))) }
        mutating func encode(_ value: UInt64) throws { add(.integer(String(value))) }
        mutating func encode(_ value: Int128) throws { throw giveUp() }
        mutating func encode(_ value: UInt128) throws { throw giveUp() }

        mutating func encode<T: Encodable>(_ value: T) throws {
            add(try FastJSONEncoder.node(for: value, state: state, codingPath: codingPath + [FastJSON.IndexKey(intValue: count)]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectNode()
            add(.object(nested))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: nested, codingPath: codingPath, state: state))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = ArrayNode()
            add(.array(nested))
            return UnkeyedContainer(array: nested, codingPath: codingPath, state: state)
        }

        mutating func superEncoder() -> any Encoder {
            state.gaveUp = true
            return ValueEncoder(state: state, codingPath: codingPath)
        }
    }
}
