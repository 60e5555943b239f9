import ActionCore
import Foundation
import Testing

/// How many times each probe action ran, by probe name.
private let runs = Recorder<String>()

private enum RecordRunAction: Action {
    typealias Input = String
    typealias Output = String
    static let description = "Records that it ran"

    static func perform(context: ActionContext<String>, completion: Completion) -> Completion.Status {
        runs.record(context.input)
        return completion.completedSync(.success(context.input))
    }
}

/// Switched at runtime, off at first.
private enum BetaFeature: ConditionalFeature {
    static let description = "Off until switched on"
    static let run = action(RecordRunAction.self, name: "run")

    static func prepare(conditions: inout FeatureConditions) {
        conditions.runtimeEnabled(initially: false)
    }

    static func prepare(actions: inout FeatureActions) {
        actions.declare(run)
    }
}

/// Bought, permitted and turned on by the user.
private enum PremiumFeature: ConditionalFeature {
    static let description = "Needs a purchase, a permission and the user's consent"
    static let run = action(RecordRunAction.self, name: "run")

    static func prepare(conditions: inout FeatureConditions) {
        conditions.purchase("premium-\(ConditionalFeatureTests.token)")
        conditions.permission("camera-\(ConditionalFeatureTests.token)")
        conditions.userToggled(defaultEnabled: true)
    }
}

private enum PlainFeature: Feature {
    static let description = "Always available"
    static let run = action(RecordRunAction.self, name: "run")
}

private enum ConditionalApp: FeatureGroup {
    static let description = "Conditional probes"
    static var subfeatures: [any Feature.Type] { [BetaFeature.self] }
}

/// Flint's conditional features: unavailable ones are refused before their actions run, typed
/// or by name, and `request()` says so first.
@Suite("Conditional features", .serialized)
struct ConditionalFeatureTests {
    static let token = UUID().uuidString

    @Test func aFeatureSwitchedOffRefusesItsActionsUntilSwitchedOn() async throws {
        let session = ActionSession(name: "beta")
        #expect(BetaFeature.run.request() == nil)
        #expect(!BetaFeature.isAvailable)
        let refused = await session.outcome(of: BetaFeature.run, input: "while off")
        #expect(refused.error?.code == .featureUnavailable)
        #expect(refused.error?.message.contains("BetaFeature") == true)

        FeatureAvailability.shared.setEnabled(true, for: BetaFeature.self)
        defer { FeatureAvailability.shared.resetSwitch(featureNamed: BetaFeature.name) }
        let verified = try #require(BetaFeature.run.request())
        #expect(try await session.perform(verified, input: "while on") == "while on")

        FeatureAvailability.shared.setEnabled(false, for: BetaFeature.self)
        let refusedAgain = await session.outcome(of: BetaFeature.run, input: "off again")
        #expect(refusedAgain.error?.code == .featureUnavailable)
        #expect(!runs.values.contains("while off"))
        #expect(!runs.values.contains("off again"))
        #expect(runs.values.contains("while on"))
    }

    @Test func aPerformByNameIsRefusedToo() async {
        // What a worker does with a request for a switched-off feature.
        let session = ActionSession(name: "beta-by-name", catalog: ActionCatalog(root: ConditionalApp.self))
        let outcome = await session.perform(named: "BetaFeature.run", jsonInput: Data(#""by name""#.utf8))
        #expect(outcome.error?.code == .featureUnavailable)
        #expect(!runs.values.contains("by name"))
    }

    @Test func purchasesPermissionsAndUserTogglesMustAllHold() async {
        let availability = FeatureAvailability.shared
        defer {
            availability.purchases = nil
            availability.permissions = nil
            availability.userToggles = nil
        }
        // Nobody answers for purchases or permissions: not available.
        #expect(!PremiumFeature.isAvailable)
        availability.purchases = { $0 == "premium-\(Self.token)" }
        #expect(!PremiumFeature.isAvailable)
        availability.permissions = { $0 == "camera-\(Self.token)" }
        #expect(PremiumFeature.isAvailable)
        availability.userToggles = { $0 == PremiumFeature.name ? false : nil }
        #expect(!PremiumFeature.isAvailable)
        #expect(PremiumFeature.run.request() == nil)
        availability.userToggles = { _ in nil }
        #expect(PremiumFeature.run.request() != nil)
    }

    @Test func aPlainFeatureIsAlwaysAvailable() {
        #expect(PlainFeature.run.request() != nil)
        #expect(PlainFeature.run.isAvailable)
    }
}
