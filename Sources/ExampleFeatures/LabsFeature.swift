import ActionCore

/// `Labs`: a conditional feature (Flint's), off until switched on. On a bus it is switched
/// fleet-wide: `actionbus features --enable Labs`; until then `Labs.preview` fails
/// `featureUnavailable` on every worker.
public enum LabsFeature: ConditionalFeature {
    /// "Labs".
    public static let name = "Labs"
    /// "Experiments, off until switched on".
    public static let description = "Experiments, off until switched on"

    /// `Labs.preview {"text"}` → `{"text"}` in capitals.
    public static let preview = action(PreviewAction.self)

    /// A runtime switch, off by default.
    public static func prepare(conditions: inout FeatureConditions) {
        conditions.runtimeEnabled(initially: false)
    }

    /// Declares `preview`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(preview)
    }
}

/// Answers with its text in capitals: the experiment.
public enum PreviewAction: Action {
    /// `{"text"}`.
    public typealias Input = SayAction.Message
    /// `{"text"}`, in capitals.
    public typealias Output = SayAction.Message

    /// "Answers in capitals (an experiment)".
    public static let description = "Answers in capitals (an experiment)"

    /// Completes synchronously with the text in capitals.
    public static func perform(context: ActionContext<SayAction.Message>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(SayAction.Message(text: context.input.text.uppercased())))
    }
}
