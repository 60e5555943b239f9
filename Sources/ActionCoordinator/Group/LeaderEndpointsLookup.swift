import GroupLeadership
import Locking

/// Where a member that does not lead points clients and workers: the endpoints the leader
/// published (``MemberEndpointsRecord``), looked up whenever the leader seen changes, and handed
/// to the member's redirector for as long as it runs. It forwards Majordomo clients to the
/// leader's clients endpoint and names the leader's endpoints in its NOT-LEADER answers.
final class LeaderEndpointsLookup: Sendable {
    private struct State {
        var redirector: MemberRedirector?
        var leader = MemberRedirector.LeaderEndpoints()
        /// Counts the leaders seen: a lookup that finishes after a newer one began is dropped.
        var generation = 0
    }

    /// How often, and how many times, a leader's endpoints that cannot be read yet are asked again.
    static let lookupRetry: Duration = .milliseconds(500)
    static let lookupAttempts = 20

    private let state = Locked(State())
    private let record: MemberEndpointsRecord
    private let member: String

    init(record: MemberEndpointsRecord, member: String) {
        self.record = record
        self.member = member
    }

    /// The election saw `view`: point to that leader's endpoints once they are read, or nowhere
    /// while no other member leads.
    func leaderSeen(_ view: LeaderCampaign.LeaderView) {
        let leader: String? = if case let .held(held) = view, held.member != member { held.member } else { nil }
        let generation = state.withLock { state in
            state.generation += 1
            return state.generation
        }
        guard let leader else { return apply(.init(), generation: generation) }
        Task { [record] in
            var found = MemberRedirector.LeaderEndpoints()
            for attempt in 1...Self.lookupAttempts {
                if found.clients == nil { found.clients = await record.endpoint(of: leader, role: .clients) }
                if found.workers == nil { found.workers = await record.endpoint(of: leader, role: .workers) }
                // Each as soon as it is known; both, or the last attempt, end the lookup.
                apply(found, generation: generation)
                if found.clients != nil, found.workers != nil { return }
                guard attempt < Self.lookupAttempts, state.withLock({ $0.generation == generation }) else { return }
                try? await Task.sleep(for: Self.lookupRetry)
            }
        }
    }

    /// The term's redirector, which points there from now on; `nil` when the term's ends.
    func attach(_ redirector: MemberRedirector?) {
        let leader = state.withLock { state in
            state.redirector = redirector
            return state.leader
        }
        redirector?.pointTo(leader)
    }

    private func apply(_ leader: MemberRedirector.LeaderEndpoints, generation: Int) {
        let redirector: MemberRedirector? = state.withLock { state in
            guard state.generation == generation else { return nil }
            state.leader = leader
            return state.redirector
        }
        redirector?.pointTo(leader)
    }
}
