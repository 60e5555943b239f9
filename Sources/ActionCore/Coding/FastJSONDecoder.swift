import Foundation

/// A `Decoder` for the common case of an action's JSON input, at a fraction of the cost of
/// Foundation's `JSONDecoder` for the small inputs actions take (a worker decodes one per
/// request: it was a fifth of a worker's CPU).
///
/// It never decides anything Foundation's decoder might decide otherwise: it returns `nil`
/// whenever the input does not parse, a value does not fit the type asked for, a type has its
/// own rule in `JSONDecoder` (`Data`, `Date`, `URL`, `Decimal`), or anything threw an error
/// during the decode (even one the type's own `init(from:)` caught and recovered from). The
/// caller then decodes with `JSONDecoder`, which gives the result, or the error, it always gave.
@usableFromInline
enum FastJSONDecoder {
    /// Inlinable, so that `T`'s `init(from:)` is specialised and inlined where `T` is known.
    @inlinable
    static func decode<T: Decodable>(_ type: T.Type, from data: some ContiguousBytes) -> T? {
        // Types JSONDecoder decodes by its own rules rather than their Decodable conformance.
        guard !FastJSON.isSpecial(type) else { return nil }
        var decoded: T?
        let decodedAll = data.withUnsafeBytes { bytes in
            read(bytes) { decoder in decoded = try T(from: decoder) }
        }
        return decodedAll ? decoded : nil
    }

    /// Parses `bytes` and runs `decode` with a decoder of the whole document: `false` when the
    /// bytes do not parse, `decode` throws, or anything in it gave up.
    @usableFromInline
    static func read(_ bytes: UnsafeRawBufferPointer, _ decode: (any Decoder) throws -> Void) -> Bool {
        guard let value = JSONValue.parse(bytes) else { return false }
        let decoder = ValueDecoder(value: value, codingPath: [], state: nil)
        guard (try? decode(decoder)) != nil else { return false }
        return !decoder.gaveUp
    }

    /// A decoder positioned on one value.
    final class ValueDecoder: FastJSON.Attempt, Decoder, SingleValueDecodingContainer {
        let value: JSONValue
        let codingPath: [any CodingKey]
        private let rootState: FastJSON.Attempt?
        /// The attempt this decoder is part of: its root's, or its own at the root.
        var state: FastJSON.Attempt { rootState ?? self }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        /// A decoder of `value`; `state` `nil` makes it the root of an attempt.
        init(value: JSONValue, codingPath: [any CodingKey], state: FastJSON.Attempt?) {
            self.value = value
            self.codingPath = codingPath
            self.rootState = state
        }

        func giveUp() -> FastJSON.GaveUp {
            state.gaveUp = true
            return FastJSON.GaveUp()
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let members) = value else { throw giveUp() }
            return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath, state: state))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let elements) = value else { throw giveUp() }
            return UnkeyedContainer(elements: elements, codingPath: codingPath, state: state)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        // MARK: Single value

        /// What a JSON value reads as, for each primitive type; `nil` where the fast decoder
        /// gives up.
        struct Primitive {
            let value: JSONValue

            init(_ value: JSONValue) { self.value = value }

            var isNull: Bool {
                if case .null = value { return true }
                return false
            }

            var bool: Bool? {
                if case .bool(let bool) = value { return bool }
                return nil
            }

            var string: String? {
                if case .string(let string) = value { return string }
                return nil
            }

            /// `nil` also for an underflow to zero, which Foundation refuses.
            var double: Double? {
                guard case .number(let text) = value, let number = Double(text), number.isFinite else { return nil }
                if number == 0, text.prefix(while: { $0 != "e" && $0 != "E" }).contains(where: { $0 >= "1" && $0 <= "9" }) { return nil }
                return number
            }

            /// An integer written as one (no fraction, no exponent) that fits; anything else is
            /// left to Foundation, whose rules for `1.0` or `1e2` are its own.
            func integer<T: FixedWidthInteger>() -> T? {
                guard case .number(let text) = value, T.isSigned || !text.hasPrefix("-") else { return nil }
                return T(text, radix: 10)
            }
        }

        private func primitive<T>(_ read: (Primitive) -> T?) throws -> T {
            guard let primitive = read(Primitive(value)) else { throw giveUp() }
            return primitive
        }

        func decodeNil() -> Bool { Primitive(value).isNull }
        func decode(_ type: Bool.Type) throws -> Bool { try primitive { $0.bool } }
        func decode(_ type: String.Type) throws -> String { try primitive { $0.string } }
        func decode(_ type: Double.Type) throws -> Double { try primitive { $0.double } }
        /// Left to Foundation: whether it rounds through `Double` is its own business.
        func decode(_ type: Float.Type) throws -> Float { throw giveUp() }
        func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(Int8.self) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(Int16.self) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(Int32.self) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(UInt.self) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }
        func decode(_ type: Int128.Type) throws -> Int128 { throw giveUp() }
        func decode(_ type: UInt128.Type) throws -> UInt128 { throw giveUp() }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard !FastJSON.isSpecial(type) else { throw giveUp() }
            return try T(from: self)
        }

        private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T { try primitive { $0.integer() } }
    }

    /// An object's members, read by key.
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [JSONMember]
        let codingPath: [any CodingKey]
        let state: FastJSON.Attempt

        var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

        func contains(_ key: Key) -> Bool { member(key) != nil }

        private func member(_ key: Key) -> JSONValue? {
            let name = key.stringValue
            for member in members where member.key == name { return member.value }
            return nil
        }

        private func value(for key: Key) throws -> JSONValue {
            guard let value = member(key) else {
                state.gaveUp = true
                throw FastJSON.GaveUp()
            }
            return value
        }

        private func decoder(for key: Key) throws -> ValueDecoder {
            ValueDecoder(value: try value(for: key), codingPath: codingPath + [key], state: state)
        }

        /// Primitives are read straight from the member's value, with no decoder made for it.
        private func primitive<T>(_ key: Key, _ read: (ValueDecoder.Primitive) -> T?) throws -> T {
            guard let primitive = read(ValueDecoder.Primitive(try value(for: key))) else {
                state.gaveUp = true
                throw FastJSON.GaveUp()
            }
            return primitive
        }

        func decodeNil(forKey key: Key) throws -> Bool { try primitive(key) { $0.isNull } }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try primitive(key) { $0.bool } }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try primitive(key) { $0.string } }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try primitive(key) { $0.double } }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(key) { _ in nil } }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try primitive(key) { $0.integer() } }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(key) { $0.integer() } }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(key) { $0.integer() } }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(key) { $0.integer() } }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(key) { $0.integer() } }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(key) { $0.integer() } }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(key) { $0.integer() } }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(key) { $0.integer() } }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(key) { $0.integer() } }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(key) { $0.integer() } }
        func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try primitive(key) { _ in nil } }
        func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try primitive(key) { _ in nil } }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(for: key).decode(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder(for: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder(for: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            state.gaveUp = true
            throw FastJSON.GaveUp()
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            state.gaveUp = true
            throw FastJSON.GaveUp()
        }
    }

    /// An array's elements, read in order.
    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let codingPath: [any CodingKey]
        let state: FastJSON.Attempt
        private(set) var currentIndex = 0

        init(elements: [JSONValue], codingPath: [any CodingKey], state: FastJSON.Attempt) {
            self.elements = elements
            self.codingPath = codingPath
            self.state = state
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private func current() throws -> ValueDecoder {
            guard !isAtEnd else {
                state.gaveUp = true
                throw FastJSON.GaveUp()
            }
            return ValueDecoder(value: elements[currentIndex], codingPath: codingPath + [FastJSON.IndexKey(intValue: currentIndex)], state: state)
        }

        /// Decodes the current element and, only when that succeeds, moves past it (as
        /// Foundation does: a failed element can be decoded again as something else).
        private mutating func next<T>(_ decode: (ValueDecoder) throws -> T) throws -> T {
            let value = try decode(try current())
            currentIndex += 1
            return value
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else {
                state.gaveUp = true
                throw FastJSON.GaveUp()
            }
            // Like JSONDecoder: a null is consumed, anything else is left for the next decode.
            if case .null = elements[currentIndex] {
                currentIndex += 1
                return true
            }
            return false
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.decode(type) } }
        mutating func decode(_ type: String.Type) throws -> String { try next { try $0.decode(type) } }
        mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.decode(type) } }
        mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.decode(type) } }
        mutating func decode(_ type: Int128.Type) throws -> Int128 { try next { try $0.decode(type) } }
        mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next { try $0.decode(type) } }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next { try $0.decode(type) } }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next { try $0.container(keyedBy: type) }
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try next { try $0.unkeyedContainer() }
        }

        mutating func superDecoder() throws -> any Decoder {
            state.gaveUp = true
            throw FastJSON.GaveUp()
        }
    }
}
