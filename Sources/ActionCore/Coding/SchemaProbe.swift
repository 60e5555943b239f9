/// A `Decoder` that answers every question with a placeholder and notes what was asked: the
/// node tree it builds is the decoded type's shape (``ActionSchema/of(_:)``).
final class SchemaProbe: Decoder {
    /// What one value turned out to be.
    final class Node {
        enum Kind { case unknown, object, array, string, integer, number, boolean }
        var kind = Kind.unknown
        var properties: [(key: String, node: Node, required: Bool)] = []
        var items: Node?

        var schema: ActionSchema {
            switch kind {
            case .unknown: return .unknown
            case .string: return .string
            case .integer: return .integer
            case .number: return .number
            case .boolean: return .boolean
            case .array: return .array(of: items?.schema ?? .unknown)
            case .object:
                var properties: [String: ActionSchema] = [:]
                var required: [String] = []
                for property in self.properties where properties[property.key] == nil {
                    properties[property.key] = property.node.schema
                    if property.required { required.append(property.key) }
                }
                return .object(properties: properties, required: required.sorted())
            }
        }

        /// The node for `key`, made on first use.
        func property(_ key: String, required: Bool) -> Node {
            if let existing = properties.first(where: { $0.key == key }) { return existing.node }
            let node = Node()
            properties.append((key, node, required))
            return node
        }
    }

    let node: Node
    let depth: Int
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    init(node: Node = Node(), depth: Int = 0) {
        self.node = node
        self.depth = depth
    }

    /// Recursive types stop here rather than looping.
    static let maxDepth = 16

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        node.kind = .object
        return KeyedDecodingContainer(KeyedProbe<Key>(probe: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        node.kind = .array
        let items = node.items ?? Node()
        node.items = items
        return UnkeyedProbe(probe: SchemaProbe(node: items, depth: depth + 1))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueProbe(probe: self)
    }

    /// Decodes `type` into `node`, noting its kind; a value that refuses a placeholder keeps what
    /// was learnt before it did.
    static func value<T: Decodable>(_ type: T.Type, into node: Node, depth: Int) throws -> T {
        if let placeholder = placeholder(for: type, node: node) { return placeholder }
        guard depth < maxDepth else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "too deep")) }
        return try T(from: SchemaProbe(node: node, depth: depth + 1))
    }

    /// A placeholder for the types JSON has, noting the kind.
    static func placeholder<T>(for type: T.Type, node: Node) -> T? {
        switch type {
        case is String.Type: node.kind = .string; return "" as? T
        case is Bool.Type: node.kind = .boolean; return false as? T
        case is Int.Type: node.kind = .integer; return 0 as? T
        case is Int8.Type: node.kind = .integer; return Int8(0) as? T
        case is Int16.Type: node.kind = .integer; return Int16(0) as? T
        case is Int32.Type: node.kind = .integer; return Int32(0) as? T
        case is Int64.Type: node.kind = .integer; return Int64(0) as? T
        case is UInt.Type: node.kind = .integer; return UInt(0) as? T
        case is UInt8.Type: node.kind = .integer; return UInt8(0) as? T
        case is UInt16.Type: node.kind = .integer; return UInt16(0) as? T
        case is UInt32.Type: node.kind = .integer; return UInt32(0) as? T
        case is UInt64.Type: node.kind = .integer; return UInt64(0) as? T
        case is Double.Type: node.kind = .number; return 0.0 as? T
        case is Float.Type: node.kind = .number; return Float(0) as? T
        default: return nil
        }
    }
}

private struct KeyedProbe<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: SchemaProbe
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool {
        // Asked whether it is null: it may be, so it is not required.
        _ = probe.node.property(key.stringValue, required: false)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try SchemaProbe.value(type, into: probe.node.property(key.stringValue, required: true), depth: probe.depth)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try SchemaProbe.value(type, into: probe.node.property(key.stringValue, required: false), depth: probe.depth)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let node = probe.node.property(key.stringValue, required: true)
        return try SchemaProbe(node: node, depth: probe.depth + 1).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let node = probe.node.property(key.stringValue, required: true)
        return try SchemaProbe(node: node, depth: probe.depth + 1).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { probe }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        SchemaProbe(node: probe.node.property(key.stringValue, required: true), depth: probe.depth + 1)
    }
}

/// An array's container: one element is decoded, to learn the element's shape; then it ends.
private struct UnkeyedProbe: UnkeyedDecodingContainer {
    let probe: SchemaProbe
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 1 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex >= 1 }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        currentIndex += 1
        return try SchemaProbe.value(type, into: probe.node, depth: probe.depth)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        currentIndex += 1
        return try probe.container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        currentIndex += 1
        return try probe.unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { probe }
}

private struct SingleValueProbe: SingleValueDecodingContainer {
    let probe: SchemaProbe
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try SchemaProbe.value(type, into: probe.node, depth: probe.depth)
    }
}
