/// A JSON scalar from an action's output.
package enum JSONValue: Decodable, Equatable, Sendable {
    case number(Double), string(String), bool(Bool)

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let bool = try? container.decode(Bool.self) { self = .bool(bool) }
        else { self = .string(try container.decode(String.self)) }
    }

    package var number: Double? { if case .number(let value) = self { return value } else { return nil } }
    package var string: String? { if case .string(let value) = self { return value } else { return nil } }
}
