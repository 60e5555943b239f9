import ActionCore

/// Records every observer callback as a readable event.
final class TestObserver: ActionDispatchObserver {
    enum Event: Sendable, Equatable {
        case willBegin(ActionRequestID, String)
        case didComplete(ActionRequestID, ActionOutcomeSummary)
        case timedOut(ActionRequestID)
        case completedTwice(ActionRequestID, ActionCompletionRejection.Reason)
    }

    let events = Recorder<Event>()

    func actionWillBegin(_ event: ActionDispatchEvent) {
        events.record(.willBegin(event.requestID, event.actionName))
    }

    func actionDidComplete(_ event: ActionDispatchEvent, outcome: ActionOutcomeSummary) {
        events.record(.didComplete(event.requestID, outcome))
    }

    func actionTimedOut(_ event: ActionDispatchEvent) {
        events.record(.timedOut(event.requestID))
    }

    func actionCompletedTwice(_ event: ActionDispatchEvent, rejection: ActionCompletionRejection) {
        events.record(.completedTwice(event.requestID, rejection.reason))
    }
}
