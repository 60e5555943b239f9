import GroupLeadership
import Locking

/// Where a member that does not lead forwards Majordomo clients: the clients endpoint the
/// leader published (``MemberClientsRecord``), looked up whenever the leader seen changes, and
/// handed to the member's redirector for as long as it runs.
final class MajordomoForwarding: Sendable {
    private struct State {
        var redirector: MemberRedirector?
        var target: String?
        /// Counts the leaders seen: a lookup that finishes after a newer one began is dropped.
        var generation = 0
    }

    /// How often, and how many times, a leader's endpoint that cannot be read yet is asked again.
    static let lookupRetry: Duration = .milliseconds(500)
    static let lookupAttempts = 20

    private let state = Locked(State())
    private let record: MemberClientsRecord
    private let member: String

    init(record: MemberClientsRecord, member: String) {
        self.record = record
        self.member = member
    }

    /// The election saw `view`: forward to that leader's clients endpoint once it is read, or
    /// nowhere while no other member leads.
    func leaderSeen(_ view: LeaderCampaign.LeaderView) {
        let leader: String? = if case let .held(held) = view, held.member != member { held.member } else { nil }
        let generation = state.withLock { state in
            state.generation += 1
            return state.generation
        }
        guard let leader else { return apply(nil, generation: generation) }
        Task { [record] in
            for attempt in 1...Self.lookupAttempts {
                if let endpoint = await record.endpoint(of: leader) { return apply(endpoint, generation: generation) }
                guard attempt < Self.lookupAttempts, state.withLock({ $0.generation == generation }) else { break }
                try? await Task.sleep(for: Self.lookupRetry)
            }
            apply(nil, generation: generation)
        }
    }

    /// The term's redirector, which forwards from now on; `nil` when the term's ends.
    func attach(_ redirector: MemberRedirector?) {
        let target = state.withLock { state in
            state.redirector = redirector
            return state.target
        }
        redirector?.forwardMajordomo(to: target)
    }

    private func apply(_ endpoint: String?, generation: Int) {
        let redirector: MemberRedirector? = state.withLock { state in
            guard state.generation == generation else { return nil }
            state.target = endpoint
            return state.redirector
        }
        redirector?.forwardMajordomo(to: endpoint)
    }
}
