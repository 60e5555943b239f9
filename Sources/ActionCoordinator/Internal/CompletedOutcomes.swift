import ActionWire
import DequeModule

/// Recently finished outcomes by request id, oldest evicted first, bounded both in number and
/// in bytes (outputs can be up to the message limit each).
struct CompletedOutcomes {
    let capacity: Int
    let byteCapacity: Int
    private var outcomes: [String: WireOutcome] = [:]
    private var order: Deque<String> = []
    private(set) var bytes = 0

    init(capacity: Int, byteCapacity: Int = .max) {
        self.capacity = max(0, capacity)
        self.byteCapacity = max(0, byteCapacity)
    }

    subscript(requestID: String) -> WireOutcome? { outcomes[requestID] }

    /// The outcomes kept, oldest first.
    var oldestFirst: [WireOutcome] { order.compactMap { outcomes[$0] } }

    var count: Int { outcomes.count }

    mutating func record(_ outcome: WireOutcome) {
        guard capacity > 0 else { return }
        if let replaced = outcomes.updateValue(outcome, forKey: outcome.requestID) {
            bytes -= Self.size(of: replaced)
        } else {
            order.append(outcome.requestID)
        }
        bytes += Self.size(of: outcome)
        while order.count > capacity || (bytes > byteCapacity && order.count > 1), let oldest = order.popFirst() {
            if let evicted = outcomes.removeValue(forKey: oldest) { bytes -= Self.size(of: evicted) }
        }
    }

    /// Roughly what an outcome costs to keep: its variable-length fields.
    static func size(of outcome: WireOutcome) -> Int {
        let result: Int
        switch outcome.result {
        case .success(let contentType, let output): result = contentType.utf8.count + output.count
        case .failure(let code, let message): result = code.utf8.count + message.utf8.count
        }
        return outcome.requestID.utf8.count + outcome.action.utf8.count + outcome.session.utf8.count
            + outcome.worker.utf8.count + result + 64
    }
}
