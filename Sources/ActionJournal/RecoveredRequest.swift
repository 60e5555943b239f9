import ActionWire
import Foundation

/// An accepted request the journal holds no outcome for.
public struct RecoveredRequest: Sendable, Hashable {
    /// The request as accepted.
    public var request: WireRequest
    /// Its wall-clock deadline.
    public var deadline: Date
    /// How many workers died holding it (toward `maxDeliveries`).
    public var workerDeaths: Int

    /// Describes a recovered request.
    public init(request: WireRequest, deadline: Date, workerDeaths: Int = 0) {
        self.request = request
        self.deadline = deadline
        self.workerDeaths = workerDeaths
    }
}
