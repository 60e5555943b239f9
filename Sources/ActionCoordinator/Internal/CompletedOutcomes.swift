import ActionWire
import DequeModule

/// Recently finished outcomes by request id, oldest evicted first.
struct CompletedOutcomes {
    let capacity: Int
    private var outcomes: [String: WireOutcome] = [:]
    private var order: Deque<String> = []

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    subscript(requestID: String) -> WireOutcome? { outcomes[requestID] }

    /// The outcomes kept, oldest first.
    var oldestFirst: [WireOutcome] { order.compactMap { outcomes[$0] } }

    mutating func record(_ outcome: WireOutcome) {
        guard capacity > 0 else { return }
        if outcomes.updateValue(outcome, forKey: outcome.requestID) == nil {
            order.append(outcome.requestID)
        }
        while order.count > capacity, let oldest = order.popFirst() {
            outcomes[oldest] = nil
        }
    }
}
