import ActionCore
import Testing

private enum NoopAction: Action {
    static let description = "Does nothing"

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(NoOutput()))
    }
}

private enum DrawingFeature: Feature {
    static let description = "Draw"
    static let pen = action(NoopAction.self, name: "pen")
    static let undoBuffer = action(NoopAction.self, name: "undoBuffer")

    static func prepare(actions: inout FeatureActions) {
        actions.publish(pen)
        actions.declare(undoBuffer)
    }
}

private enum ExportFeature: ConditionalFeature {
    static let description = "Export"
    static let pdf = action(NoopAction.self, name: "pdf")

    static func prepare(conditions: inout FeatureConditions) { conditions.runtimeEnabled() }
    static func prepare(actions: inout FeatureActions) { actions.publish(pdf) }
}

private enum ToolsGroup: FeatureGroup {
    static let description = "Tools"
    static var subfeatures: [any Feature.Type] { [DrawingFeature.self, ExportFeature.self] }
}

private enum PaintApp: FeatureGroup {
    static let description = "A painting app"
    static var subfeatures: [any Feature.Type] { [ToolsGroup.self] }
}

/// The catalog keeps Flint's feature graph (parents, groups, conditional features) and which
/// actions were published rather than only declared.
@Suite("Catalog: the feature graph and published actions")
struct CatalogGraphTests {
    let catalog = ActionCatalog(root: PaintApp.self)

    @Test func everyFeatureKnowsItsParent() {
        #expect(catalog.features.map(\.name) == ["PaintApp", "ToolsGroup", "DrawingFeature", "ExportFeature"])
        #expect(catalog.features.map(\.parent) == [nil, "PaintApp", "ToolsGroup", "ToolsGroup"])
        #expect(catalog.features.map(\.isGroup) == [true, true, false, false])
        #expect(catalog.features.map(\.isConditional) == [false, false, false, true])
        #expect(catalog.subfeatures(of: nil).map(\.name) == ["PaintApp"])
        #expect(catalog.subfeatures(of: "ToolsGroup").map(\.name) == ["DrawingFeature", "ExportFeature"])
        #expect(catalog.features[2].actionNames == ["DrawingFeature.pen", "DrawingFeature.undoBuffer"])
        #expect(catalog.features[2].description == "Draw")
    }

    @Test func publishedActionsAreToldFromDeclaredOnes() {
        #expect(catalog.actionNames == ["DrawingFeature.pen", "DrawingFeature.undoBuffer", "ExportFeature.pdf"])
        #expect(catalog.publishedActions.map(\.fullName) == ["DrawingFeature.pen", "ExportFeature.pdf"])
        #expect(catalog.action(named: "DrawingFeature.undoBuffer")?.isPublished == false)
    }
}
