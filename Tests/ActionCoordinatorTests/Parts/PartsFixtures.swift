@testable import ActionCoordinator
import ActionWire

/// Small makers shared by the coordinator parts' tests.
enum PartsFixtures {
    static let origin = ContinuousClock.now

    static func worker(_ name: String, credits: UInt32 = 2, actions: [String] = ["Echo.say"]) -> WorkerRecord {
        WorkerRecord(
            id: WorkerID(Array(name.utf8)), registration: WorkerRegistration(name: name, credits: credits, actions: actions),
            now: origin
        )
    }

    static func request(
        _ id: String, action: String = "Echo.say", session: String = "", order: UInt64 = 0,
        deadline: Duration = .seconds(30), sender: RequestSender? = nil
    ) -> PendingRequest {
        PendingRequest.make(
            WireRequest(requestID: id, action: action, session: session, input: []), sender: sender, order: order,
            deadline: origin + deadline
        )
    }
}
