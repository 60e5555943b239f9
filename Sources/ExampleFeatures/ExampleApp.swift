import ActionCore

/// The root feature group of the example application hosted by the `actionbus` CLI and used by tests.
///
/// Its actions: `Echo.say`, `Echo.sayDirect`, `Echo.sayTwice`, `Clock.sleep`, `Math.fibonacci`,
/// `Sequence.next`, `Documents.open`, `Documents.edit`, `Documents.close`, `Fault.fail`,
/// `Fault.hang`, `Fault.crash`, `Fault.flaky`, `Fault.oversize`, `Fault.block` and `Labs.preview` (a
/// conditional feature, off until switched on).
public enum ExampleApp: FeatureGroup {
    /// "The example features".
    public static let description = "The example features"

    /// Every example feature.
    public static var subfeatures: [any Feature.Type] {
        [
            EchoFeature.self, ClockFeature.self, MathFeature.self, SequenceFeature.self, DocumentsFeature.self, FaultFeature.self,
            LabsFeature.self,
        ]
    }

    /// The catalog of every example action, `Fault.*` included (tests and `actionbus dev`).
    public static let catalog = ActionCatalog(root: ExampleApp.self)

    /// The catalog of the example actions that cannot harm the worker serving them: every
    /// example feature but ``FaultFeature``, whose actions crash, hang or block their worker on any
    /// client's request (what `actionbus worker --examples` serves).
    public static let harmlessCatalog = ActionCatalog(
        features: subfeatures.filter { ObjectIdentifier($0) != ObjectIdentifier(FaultFeature.self) }
    )
}
