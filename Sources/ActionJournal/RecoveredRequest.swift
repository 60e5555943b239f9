import ActionWire
import Foundation

/// An accepted request the journal holds no outcome for.
package struct RecoveredRequest: Sendable, Hashable {
    /// The request as accepted.
    package var request: WireRequest
    /// Its wall-clock deadline.
    package var deadline: Date
    /// How many workers died holding it (toward `maxDeliveries`).
    package var workerDeaths: Int

    /// Describes a recovered request.
    package init(request: WireRequest, deadline: Date, workerDeaths: Int = 0) {
        self.request = request
        self.deadline = deadline
        self.workerDeaths = workerDeaths
    }
}
