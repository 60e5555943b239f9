import ActionCore
import ActionWire
import Foundation

extension WorkerCatalog {
    /// `catalog` described as CATALOG carries it, as JSON: each feature, and each action with
    /// its description and the JSON Schema of its input and output.
    static func describing(_ catalog: ActionCatalog) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func json(_ schema: ActionSchema) -> JSONValue {
            (try? encoder.encode(schema)).flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) } ?? .object([:])
        }
        let described = WorkerCatalog(
            features: catalog.features.map {
                Feature(name: $0.name, description: $0.description, parent: $0.parent, conditional: $0.isConditional)
            },
            actions: catalog.actions.map { action in
                Action(
                    name: action.fullName, description: action.actionDescription, published: action.isPublished,
                    input: json(action.inputSchema), output: json(action.outputSchema)
                )
            }
        )
        return (try? encoder.encode(described)).map { Array($0) } ?? []
    }
}
