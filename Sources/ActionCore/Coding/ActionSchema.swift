/// The shape of an action's input or output, read off its `Decodable` type: what `actionbus
/// features` shows and the dashboard lists, in JSON Schema's words (`type`, `properties`,
/// `required`, `items`).
///
/// It is found by decoding the type from a probing decoder that answers every question with a
/// placeholder and notes each key asked for: exact for the plain structs actions use, a best
/// effort (what was asked before the type gave up) for types with their own validation.
public indirect enum ActionSchema: Sendable, Hashable, Codable {
    case object(properties: [String: ActionSchema], required: [String])
    case array(of: ActionSchema)
    case string
    case integer
    case number
    case boolean
    /// Nothing could be learnt (a type that decodes in ways the probe does not follow).
    case unknown

    /// The schema of `type`.
    public static func of<Value: Decodable>(_ type: Value.Type) -> ActionSchema {
        let probe = SchemaProbe()
        _ = try? Value(from: probe)
        return probe.node.schema
    }

    // JSON Schema's shape.
    private enum CodingKeys: String, CodingKey { case type, properties, required, items }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .object(let properties, let required):
            try container.encode("object", forKey: .type)
            try container.encode(properties, forKey: .properties)
            if !required.isEmpty { try container.encode(required, forKey: .required) }
        case .array(let items):
            try container.encode("array", forKey: .type)
            try container.encode(items, forKey: .items)
        case .string: try container.encode("string", forKey: .type)
        case .integer: try container.encode("integer", forKey: .type)
        case .number: try container.encode("number", forKey: .type)
        case .boolean: try container.encode("boolean", forKey: .type)
        case .unknown: break
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decodeIfPresent(String.self, forKey: .type) {
        case "object":
            self = .object(
                properties: try container.decodeIfPresent([String: ActionSchema].self, forKey: .properties) ?? [:],
                required: try container.decodeIfPresent([String].self, forKey: .required) ?? []
            )
        case "array": self = .array(of: try container.decode(ActionSchema.self, forKey: .items))
        case "string": self = .string
        case "integer": self = .integer
        case "number": self = .number
        case "boolean": self = .boolean
        default: self = .unknown
        }
    }
}
