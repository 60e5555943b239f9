import ActionCore
import ExampleFeatures
import Foundation
import Testing

@Suite("Action schemas")
struct ActionSchemaTests {
    struct Order: Codable {
        struct Line: Codable { var sku: String; var quantity: Int }
        var id: String
        var lines: [Line]
        var note: String?
        var rush: Bool
        var price: Double
        var tags: [String: String]
    }

    @Test func aStructsShapeIsReadOffItsDecodable() throws {
        let schema = ActionSchema.of(Order.self)
        guard case .object(let properties, let required) = schema else { Issue.record("not an object: \(schema)"); return }
        #expect(Set(properties.keys) == ["id", "lines", "note", "rush", "price", "tags"])
        #expect(required == ["id", "lines", "price", "rush", "tags"], "an optional member is not required")
        #expect(properties["id"] == .string && properties["rush"] == .boolean && properties["price"] == .number)
        #expect(properties["lines"] == .array(of: .object(properties: ["sku": .string, "quantity": .integer], required: ["quantity", "sku"])))
        let json = String(decoding: try JSONEncoder().encode(ActionSchema.array(of: .integer)), as: UTF8.self)
        #expect(json.contains(#""type":"array""#) && json.contains(#""items":{"type":"integer"}"#))
        #expect(try JSONDecoder().decode(ActionSchema.self, from: JSONEncoder().encode(schema)) == schema, "it reads back")
    }

    @Test func theCatalogKnowsEachActionsShapes() {
        let say = ExampleApp.catalog.action(named: "Echo.say")
        #expect(say?.inputSchema == .object(properties: ["text": .string], required: ["text"]))
        #expect(say?.outputSchema == .object(properties: ["text": .string], required: ["text"]))
        #expect(ExampleApp.catalog.action(named: "Clock.sleep")?.inputSchema == .object(properties: ["ms": .integer], required: ["ms"]))
    }
}
