/// One worker as `actionbus workers --json` lists it.
package struct ListedWorker: Decodable, Sendable, Hashable {
    /// The whole report: `{"workers":[...]}`.
    package struct Report: Decodable, Sendable {
        package let workers: [ListedWorker]
    }

    package let name: String
    /// Its routing id on the coordinator's workers socket.
    package let id: String
    /// `ABP/…`, `MDP/0.1` or `MDP/0.2`.
    package let protocolName: String
    package let credits: Int
    /// Requests it runs now.
    package let inFlight: Int
    package let draining: Bool
    package let unreachable: Bool

    private enum CodingKeys: String, CodingKey {
        case name, id, protocolName = "protocol", credits, inFlight, draining, unreachable
    }

    /// Registered and taking work.
    package var isReady: Bool { !draining && !unreachable }
}
