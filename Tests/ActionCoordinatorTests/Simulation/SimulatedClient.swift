import ActionCoordinator
import ActionWire

/// A client of the simulated bus: sends requests under ids of its own (`c1:7`), resends what
/// is unanswered as the real client does (Lazy Pirate), and keeps every outcome it is told.
final class SimulatedClient {
    /// One request this client sent.
    struct Sent {
        var request: WireRequest
        /// Whether an ACCEPTED for it arrived.
        var accepted = false
        /// Every OUTCOME for it, in order of arrival: resends may bring the same one again.
        var outcomes: [WireOutcome] = []
        /// Whether the client acknowledged its outcome.
        var acknowledged = false
    }

    let address: ClientAddress
    let name: String
    private var nextNumber = 0
    /// Its requests, in the order sent.
    private(set) var sent: [Sent] = []
    private var indexByID: [String: Int] = [:]
    /// The coordinator instance the last PONG named.
    var knownInstance: String?

    init(name: String) {
        self.name = name
        address = ClientAddress(routingID: Array(name.utf8))
    }

    /// A new request of this client's.
    func makeRequest(action: String, session: String, timeoutMilliseconds: UInt32) -> WireRequest {
        nextNumber += 1
        let request = WireRequest(
            requestID: "\(name):\(nextNumber)", action: action, session: session, timeoutMilliseconds: timeoutMilliseconds,
            input: Array(#"{"text":"\#(name)-\#(nextNumber)"}"#.utf8)
        )
        indexByID[request.requestID] = sent.count
        sent.append(Sent(request: request))
        return request
    }

    func sentRequest(_ requestID: String) -> Sent? { indexByID[requestID].map { sent[$0] } }

    /// Notes an ACCEPTED; `false` for an id it never sent.
    func accepted(_ requestID: String) -> Bool {
        guard let index = indexByID[requestID] else { return false }
        sent[index].accepted = true
        return true
    }

    /// Notes an OUTCOME; `false` for an id it never sent.
    func received(_ outcome: WireOutcome) -> Bool {
        guard let index = indexByID[outcome.requestID] else { return false }
        sent[index].outcomes.append(outcome)
        return true
    }

    /// The requests still without an outcome.
    var unanswered: [WireRequest] { sent.filter { $0.outcomes.isEmpty }.map(\.request) }

    /// Takes the ids of answered, unacknowledged requests, marking them acknowledged.
    func takeAcknowledgements(limit: Int) -> [String] {
        var ids: [String] = []
        for index in sent.indices where ids.count < limit && !sent[index].outcomes.isEmpty && !sent[index].acknowledged {
            sent[index].acknowledged = true
            ids.append(sent[index].request.requestID)
        }
        return ids
    }
}
