import ActionWire

/// A registered worker, as the coordinator sees it.
///
/// A class: the core changes it in place on every request (credits, in-flight set, last
/// heard), and changing a struct inside a dictionary goes through the dictionary's `modify`
/// accessor, whose coroutine frames were heap-allocated: six allocations per change.
final class WorkerRecord {
    let id: WorkerID
    let name: String
    let actions: Set<String>
    let credits: Int
    /// Requests sent and not yet answered, including abandoned ones whose credit is still out
    /// (finished: cancelled, or past their deadline, while it ran them).
    @exclusivity(unchecked) var inFlight = RequestTable()
    @exclusivity(unchecked) var sessions: Set<String> = []
    @exclusivity(unchecked) var lastHeard: ContinuousClock.Instant
    @exclusivity(unchecked) var lastHeartbeatSent: ContinuousClock.Instant

    /// Shutting down: it gets no new requests and offers no credits.
    @exclusivity(unchecked) var isDraining = false
    /// A send to it failed (its connection is gone, perhaps being replaced under the same
    /// routing id): it gets nothing until it is heard from again, or expires.
    @exclusivity(unchecked) var isUnreachable = false
    /// How long it may be silent before it counts as dead, when not the coordinator's own
    /// (an MDP/0.1 worker keeps RFC 7's heartbeat: 3 × 2.5 s).
    @exclusivity(unchecked) var expiry: Duration?
    /// A Majordomo worker's protocol (`MDP/0.1`, `MDP/0.2`); `nil` for an ActionBus worker.
    @exclusivity(unchecked) var protocolName: String?
    /// What it serves, described (CATALOG); `nil` until it sends one (Majordomo workers never do).
    @exclusivity(unchecked) var catalog: WorkerCatalog?

    /// It gets new requests: neither draining nor unreachable.
    var takesWork: Bool { !isDraining && !isUnreachable }

    /// Never below zero: a worker that registers again with fewer credits than it runs has
    /// none free until enough of those finish.
    var freeCredits: Int { takesWork ? max(0, credits - inFlight.count) : 0 }

    init(id: WorkerID, registration: WorkerRegistration, now: ContinuousClock.Instant) {
        self.id = id
        self.name = registration.name
        self.actions = Set(registration.actions)
        self.credits = Int(registration.credits)
        self.lastHeard = now
        self.lastHeartbeatSent = now
    }
}
