import ActionCore
import Foundation
import Testing

/// Records the events of the sessions whose names start with `prefix` (the process-wide
/// dispatcher sees every test's sessions).
private final class SessionEvents: ActionDispatchObserver {
    let prefix: String
    let events = Recorder<String>()

    init(prefix: String) { self.prefix = prefix }

    func actionWillBegin(_ event: ActionDispatchEvent) {
        guard event.sessionName.hasPrefix(prefix) else { return }
        events.record("\(event.sessionName) began \(event.actionName)")
    }

    func actionDidComplete(_ event: ActionDispatchEvent, outcome: ActionOutcomeSummary) {
        guard event.sessionName.hasPrefix(prefix) else { return }
        events.record("\(event.sessionName) ended \(event.actionName) \(outcome)")
    }
}

/// An action tracked by analytics.
private enum TrackedAction: Action {
    static let description = "Tracked"
    // Typed `String?`: a `String` would not be the requirement's witness.
    static let analyticsID: String? = "tracked-thing"

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(NoOutput()))
    }
}

/// An action analytics leaves out.
private enum UntrackedAction: Action {
    static let description = "Not tracked"

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(NoOutput()))
    }
}

private enum AnalyticsFeature: Feature {
    static let description = "Analytics probes"
    static let tracked = action(TrackedAction.self)
    static let untracked = action(UntrackedAction.self)
}

private final class RecordingProvider: AnalyticsProvider {
    let sessionName: String
    let reports = Recorder<String>()

    init(sessionName: String) { self.sessionName = sessionName }

    func analyticsActionBegan(id: String, event: ActionDispatchEvent) {
        guard event.sessionName == sessionName else { return }
        reports.record("began \(id)")
    }

    func analyticsActionEnded(id: String, event: ActionDispatchEvent, outcome: ActionOutcomeSummary) {
        guard event.sessionName == sessionName else { return }
        reports.record("ended \(id) \(outcome)")
    }
}

/// Flint's `ActionDispatcher` and `AnalyticsReporting`: observers of every session in the
/// process, and analytics for the actions that ask for it.
@Suite("Process-wide dispatch and analytics")
struct ActionDispatcherTests {
    @Test func aProcessWideObserverSeesEverySessionsPerforms() async throws {
        let prefix = "dispatch-\(UUID().uuidString)"
        let observer = SessionEvents(prefix: prefix)
        ActionDispatcher.shared.addObserver(observer)
        let first = ActionSession(name: "\(prefix)-a")
        let second = ActionSession(name: "\(prefix)-b")
        _ = try await first.perform(AnalyticsFeature.untracked)
        _ = try await second.perform(AnalyticsFeature.untracked)
        let events = try #require(await observer.events.waitForValues(count: 4))
        #expect(Set(events) == [
            "\(prefix)-a began AnalyticsFeature.untracked", "\(prefix)-a ended AnalyticsFeature.untracked success",
            "\(prefix)-b began AnalyticsFeature.untracked", "\(prefix)-b ended AnalyticsFeature.untracked success",
        ])
        // One session's events arrive in order.
        #expect(events.filter { $0.hasPrefix("\(prefix)-a ") }.first?.contains("began") == true)
    }

    @Test func analyticsReportsOnlyTheActionsThatDeclareAnID() async throws {
        let session = ActionSession(name: "analytics-\(UUID().uuidString)")
        let provider = RecordingProvider(sessionName: session.name)
        ActionDispatcher.shared.addObserver(AnalyticsReporting(provider: provider))
        _ = try await session.perform(AnalyticsFeature.untracked)
        _ = try await session.perform(AnalyticsFeature.tracked)
        _ = try await session.perform(AnalyticsFeature.untracked)
        #expect(await provider.reports.waitForValues(count: 2) == ["began tracked-thing", "ended tracked-thing success"])
        // The untracked performs around it were delivered too, and reported nothing.
        let observer = TestObserver()
        session.addObserver(observer)
        _ = try await session.perform(AnalyticsFeature.untracked)
        #expect(await observer.events.waitForValues(count: 2) != nil)
        #expect(provider.reports.values.count == 2)
    }
}
