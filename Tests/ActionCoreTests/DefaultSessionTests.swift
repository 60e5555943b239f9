import ActionCore
import Dispatch
import Foundation
import Testing

/// Where an action ran: on the main queue or not, and in which session.
private struct Whereabouts: Codable, Sendable, Equatable {
    var onMainQueue: Bool
    var session: String
}

/// A Flint `UIAction`: the main queue, the main session.
private enum ShowAction: UIAction {
    typealias Output = Whereabouts
    static let description = "Reports where it ran"

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(Whereabouts(onMainQueue: DispatchQueue.main.isCurrent, session: context.session.name)))
    }
}

/// Runs on its session's main queue; performed by default in the main session.
private enum WhereAction: Action {
    typealias Output = Whereabouts
    static let description = "Reports where it ran"

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(Whereabouts(onMainQueue: DispatchQueue.main.isCurrent, session: context.session.name)))
    }
}

private let backgroundSession = ActionSession(name: "background", userInitiated: false)

/// An action whose default session is not the main one.
private enum BackgroundAction: Action {
    typealias Output = Whereabouts
    static let description = "Reports where it ran"
    static var defaultSession: ActionSession { backgroundSession }

    static func perform(context: ActionContext<NoInput>, completion: Completion) -> Completion.Status {
        completion.completedSync(.success(Whereabouts(onMainQueue: DispatchQueue.main.isCurrent, session: context.session.name)))
    }
}

private enum DefaultsFeature: Feature {
    static let description = "Default sessions"
    static let show = action(ShowAction.self)
    static let whereabouts = action(WhereAction.self, name: "where")
    static let background = action(BackgroundAction.self)

    static func prepare(actions: inout FeatureActions) {
        actions.declare(show)
        actions.declare(whereabouts)
        actions.declare(background)
    }
}

/// Flint's session conventions: `ActionSession.main` on the main queue, each action's
/// `defaultSession`, `binding.perform(input:)`, `UIAction`, and no default timeout.
@Suite("Sessions: the main session and default sessions")
struct DefaultSessionTests {
    @Test func theMainSessionRunsItsActionsOnTheMainQueue() async throws {
        #expect(ActionSession.main.name == "main")
        #expect(ActionSession.main.userInitiated)
        let whereabouts = try await DefaultsFeature.whereabouts.perform()
        #expect(whereabouts == Whereabouts(onMainQueue: true, session: "main"))
    }

    @Test func aUIActionRunsOnTheMainQueueFromAnyThread() async {
        let outcomes = Recorder<Whereabouts>()
        DispatchQueue.global().async {
            DefaultsFeature.show.perform { outcome in
                if case .success(let whereabouts, _) = outcome { outcomes.record(whereabouts) }
            }
        }
        #expect(await outcomes.waitForValues(count: 1) == [Whereabouts(onMainQueue: true, session: "main")])
    }

    @Test func anActionsDefaultSessionIsWhereBindingPerformRunsIt() async throws {
        let whereabouts = try await DefaultsFeature.background.perform()
        #expect(whereabouts == Whereabouts(onMainQueue: false, session: "background"))
    }

    @Test func aCompletionQueueChosenByTheCallerIsWhereTheOutcomeArrives() async {
        let seen = Recorder<String?>()
        DefaultsFeature.whereabouts.perform(completionQueue: TestQueues.completion.queue) { _ in
            seen.record(TaggedQueue.currentTag)
        }
        #expect(await seen.waitForValues(count: 1) == ["completion"])
    }

    @Test func aSessionHasNoDefaultTimeoutAsInFlint() async {
        #expect(ActionSessionConfiguration().defaultTimeout == nil)
        let session = ActionSession(name: "patient")
        let outcome = await session.outcome(of: ProbeFeature.completesLate, input: 200)
        #expect(outcome.output == "late")
    }
}
