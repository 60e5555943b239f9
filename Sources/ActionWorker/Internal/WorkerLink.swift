import ActionWire

/// The worker's link to its coordinator, without the socket: registering (READY, and the terms
/// WELCOME brings), heartbeats and the silence that makes the worker reconnect, draining and
/// leaving.
///
/// The driver tells it what happened (a message, a timer tick, a drain) and carries out what each
/// event returns; the link holds only values and takes the time as an argument, so its rules are
/// tested with synthetic instants and no coordinator. Requests and results never pass through
/// it: a message costs it one store (``heard(at:)``).
package struct WorkerLink {
    package enum State: Equatable, Sendable {
        /// READY sent (at the start, after a DISCONNECT or on a new connection), no WELCOME since.
        case registering
        /// WELCOME received since the last READY: the coordinator counts this worker.
        case registered
        /// DISCONNECT sent: the worker stopped.
        case left
    }

    /// What the worker keeps to: the coordinator's terms from its last WELCOME, this worker's
    /// configuration until one comes. Kept across reconnections (a new WELCOME replaces them).
    package struct Terms: Equatable, Sendable {
        /// How often it heartbeats.
        package var heartbeatInterval: Duration
        /// Heartbeat intervals of coordinator silence after which it reconnects.
        package var liveness: Int
        /// The largest output a RESULT may carry: the smaller of the two sides' message limits.
        package var maxResultBytes: Int

        package init(heartbeatInterval: Duration, liveness: Int, maxResultBytes: Int) {
            self.heartbeatInterval = heartbeatInterval
            self.liveness = liveness
            self.maxResultBytes = maxResultBytes
        }
    }

    /// Send READY, then DRAINING when `followedByDraining`: a coordinator that has forgotten a
    /// draining worker (restarted, or declared it dead) must never count it as taking new work.
    package struct Registration: Equatable, Sendable {
        package var followedByDraining: Bool

        package init(followedByDraining: Bool) {
            self.followedByDraining = followedByDraining
        }
    }

    /// What a WELCOME asks of the driver.
    package struct WelcomeAction: Equatable, Sendable {
        /// Send CATALOG if its description has at most this many bytes (else say why not).
        package var describeCatalogWithin: Int
        /// Heartbeat at this new interval from now on (`nil`: the interval did not change).
        package var heartbeatEvery: Duration?

        package init(describeCatalogWithin: Int, heartbeatEvery: Duration?) {
            self.describeCatalogWithin = describeCatalogWithin
            self.heartbeatEvery = heartbeatEvery
        }
    }

    /// What a heartbeat tick asks of the driver.
    package enum HeartbeatAction: Equatable, Sendable {
        case sendHeartbeat
        /// The coordinator fell silent: close the connection, open a new one under the same
        /// routing id (so a coordinator that only stalled sees the same worker), and register.
        case reconnect(Registration)
        /// The worker left: nothing more goes out.
        case none
    }

    /// How a drain goes on, checked until it ends.
    package enum DrainProgress: Equatable, Sendable {
        /// Requests still run and the grace period has not ended: check again after this long.
        case checkAgain(after: Duration)
        /// Leave now, with this many requests unfinished (the coordinator redelivers them).
        case leave(unfinished: Int)
    }

    /// How often a drain checks whether its requests have finished.
    package static let drainCheckInterval: Duration = .milliseconds(10)

    package private(set) var state: State = .registering
    package private(set) var terms: Terms
    /// Set by ``drain(at:grace:)``, never cleared: every later READY is followed by DRAINING.
    package private(set) var isDraining = false
    /// This worker's own message limit: the coordinator's can lower the results' limit, never raise it.
    private let ownMaxMessageBytes: Int
    /// When the coordinator last said anything (or when the connection was made).
    private var lastHeard: ContinuousClock.Instant
    /// In a coordinator group, how long a READY may go unanswered before the worker tries the
    /// next member (one that is not the leader never answers); `nil`: the usual liveness.
    package var registrationTimeout: Duration?

    package init(heartbeatInterval: Duration, liveness: Int, maxMessageBytes: Int, now: ContinuousClock.Instant) {
        terms = Terms(heartbeatInterval: heartbeatInterval, liveness: liveness, maxResultBytes: maxMessageBytes)
        ownMaxMessageBytes = maxMessageBytes
        lastHeard = now
    }

    package var isRegistered: Bool { state == .registered }

    // MARK: Events

    /// The worker connected for the first time: it registers at once, then heartbeats every
    /// ``Terms/heartbeatInterval``.
    package mutating func start(at now: ContinuousClock.Instant) -> Registration {
        state = .registering
        lastHeard = now
        return Registration(followedByDraining: isDraining)
    }

    /// Any message from the coordinator is a sign of life. Called for every message read, so
    /// kept to a store.
    @inline(__always)
    package mutating func heard(at now: ContinuousClock.Instant) {
        lastHeard = now
    }

    /// DISCONNECT: the coordinator does not know this worker (it restarted, or declared it
    /// dead); the worker must register again.
    package mutating func disconnectReceived() -> Registration {
        state = .registering
        return Registration(followedByDraining: isDraining)
    }

    /// WELCOME: the coordinator counts this worker, and its terms hold from now on, whatever
    /// this worker was configured with.
    package mutating func welcomeReceived(_ welcome: WorkerTerms) -> WelcomeAction {
        state = .registered
        terms.maxResultBytes = min(ownMaxMessageBytes, Int(welcome.maxMessageBytes))
        terms.liveness = Int(welcome.heartbeatLiveness)
        let interval = Duration.milliseconds(Int64(welcome.heartbeatMilliseconds))
        guard interval != terms.heartbeatInterval else {
            return WelcomeAction(describeCatalogWithin: terms.maxResultBytes, heartbeatEvery: nil)
        }
        terms.heartbeatInterval = interval
        return WelcomeAction(describeCatalogWithin: terms.maxResultBytes, heartbeatEvery: interval)
    }

    /// A coordinator group's member dropped the connection: it no longer leads, so
    /// the worker moves to the next member and registers there; `nil` once it has left.
    package mutating func memberLost(at now: ContinuousClock.Instant) -> Registration? {
        guard state != .left else { return nil }
        state = .registering
        lastHeard = now
        return Registration(followedByDraining: isDraining)
    }

    /// The heartbeat timer fired: heartbeat, or reconnect when the coordinator has been silent
    /// for more than interval × liveness (by the terms in force now).
    package mutating func heartbeatTimerFired(at now: ContinuousClock.Instant) -> HeartbeatAction {
        guard state != .left else { return .none }
        let limit = state == .registering ? registrationTimeout ?? terms.heartbeatInterval * terms.liveness : terms.heartbeatInterval * terms.liveness
        guard now - lastHeard > limit else { return .sendHeartbeat }
        state = .registering
        // The new connection gets a full liveness period to be answered.
        lastHeard = now
        return .reconnect(Registration(followedByDraining: isDraining))
    }

    /// The worker stops taking new work: it sends DRAINING now (and after every READY from now
    /// on), and leaves once its requests finish or `grace` ends, at the instant returned.
    package mutating func drain(at now: ContinuousClock.Instant, grace: Duration) -> ContinuousClock.Instant {
        isDraining = true
        return now + grace
    }

    /// Whether a drain ending at `deadline` is over, with `running` requests still running.
    package func drainProgress(at now: ContinuousClock.Instant, deadline: ContinuousClock.Instant, running: Int) -> DrainProgress {
        running == 0 || now >= deadline ? .leave(unfinished: running) : .checkAgain(after: Self.drainCheckInterval)
    }

    /// The worker stops: it says DISCONNECT (after the turn's last results), and the link is over.
    package mutating func stop() {
        state = .left
    }
}
