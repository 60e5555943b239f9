/// The client's watch on its coordinator, without the socket: when to ping, when the
/// coordinator counts as silent (new requests then wait), which coordinator instance answers,
/// and the evidence of loss on which, and only on which, sent requests go again (Lazy Pirate):
/// a coordinator that only stalled (a burst, a compaction, a VM pause) and answers again as the
/// same instance lost nothing, so it is never handed copies of the work it holds.
///
/// The driver tells it what happened (it started waiting, it heard something, a PONG, a dropped
/// connection, a sweep) and carries out what each event returns; the watch holds only values and
/// takes the time as an argument, so its rules are tested with synthetic instants and no
/// coordinator. Requests and outcomes never pass through it: the window asks
/// ``holdsNewRequests``, a read, and a call's timers one subtraction (``lastChance(before:)``).
package struct CoordinatorWatch {
    /// Why what was sent and is unanswered goes again.
    package enum Evidence: Equatable, Sendable {
        /// A PONG named another instance than the one that took the requests: the coordinator
        /// restarted and knows them only if its journal kept them.
        case restarted(from: String, to: String)
        /// The socket monitor saw the connection drop: what libzmq had written to it may be lost.
        case connectionDropped
    }

    /// What a PONG or a dropped connection asks of the driver.
    package enum LossAction: Equatable, Sendable {
        /// Take back every sent, unanswered request and send it again, in submission order, with
        /// the same identities (the coordinator answers copies from its table or journal).
        case resendOutstanding(Evidence)
        case none
    }

    /// What a sweep of the client's timers asks of the driver.
    package struct SweepAction: Equatable, Sendable {
        /// Send PING: the coordinator has said nothing for a heartbeat interval, nor been asked.
        package var sendPing: Bool
        /// The coordinator just fell silent, after this long: new requests (and last chances)
        /// wait until it answers. Reported once per silence.
        package var fellSilentAfter: Duration?

        package init(sendPing: Bool, fellSilentAfter: Duration? = nil) {
            self.sendPing = sendPing
            self.fellSilentAfter = fellSilentAfter
        }
    }

    /// How often the client sweeps its timers and watches the coordinator: a quarter of the
    /// heartbeat interval, at most 50 ms, so a call's deadline is kept to within that.
    package static func sweepInterval(heartbeatInterval: Duration) -> Duration {
        min(heartbeatInterval / 4, .milliseconds(50))
    }

    /// The coordinator's instance id, from the last PONG; `nil` until one comes (then a call that
    /// times out says the coordinator was unreachable, not that its request timed out).
    package private(set) var instance: String?
    /// Silent for heartbeat × liveness while the client waited: nothing new is sent (only PINGs)
    /// until it answers.
    package private(set) var holdsNewRequests = false
    private let heartbeatInterval: Duration
    /// Heartbeat × liveness, worked out once.
    private let silenceLimit: Duration
    /// How long before a call's deadline its last chance comes: a sixth of the answer grace,
    /// worked out once (dividing a `Duration` is 128-bit arithmetic).
    private let lastChanceLead: Duration
    /// When the coordinator last said anything (or when the client started waiting on it).
    private var lastHeard: ContinuousClock.Instant
    private var lastPing: ContinuousClock.Instant

    package init(heartbeatInterval: Duration, liveness: Int, answerGrace: Duration, now: ContinuousClock.Instant) {
        self.heartbeatInterval = heartbeatInterval
        silenceLimit = heartbeatInterval * liveness
        lastChanceLead = answerGrace / 6
        lastHeard = now
        lastPing = now
    }

    // MARK: Events

    /// A call arrived with nothing else pending. Silence only counts while the client waits, so
    /// it counts from now. Returns whether to PING: the PONG tells which instance answers, and a
    /// client sending one request at a time pings at most once per heartbeat interval.
    package mutating func startedWaiting(at now: ContinuousClock.Instant) -> Bool {
        lastHeard = now
        guard instance == nil || now - lastPing >= heartbeatInterval else { return false }
        lastPing = now
        return true
    }

    /// The client read one or more messages from the coordinator (at `now`, after the last).
    /// Returns whether this ends a silence: what waits may go again.
    package mutating func heard(at now: ContinuousClock.Instant) -> Bool {
        lastHeard = now
        guard holdsNewRequests else { return false }
        holdsNewRequests = false
        return true
    }

    /// A PONG named `instance`. The same instance answering again lost nothing (it drops no
    /// request it read and no reply to a live client), so only another one means a resend.
    package mutating func pongReceived(instance: String) -> LossAction {
        defer { self.instance = instance }
        guard let known = self.instance, known != instance else { return .none }
        return .resendOutstanding(.restarted(from: known, to: instance))
    }

    /// The socket monitor saw the connection to the coordinator drop, with `outstanding` requests
    /// sent and unanswered (libzmq reconnects by itself and sends what waits in its queue then).
    package func connectionDropped(outstanding: Int) -> LossAction {
        outstanding > 0 ? .resendOutstanding(.connectionDropped) : .none
    }

    /// The periodic sweep, while calls are `waiting` for the coordinator. Only a quiet
    /// coordinator is pinged: one that answers is alive, and a PING each interval through a long
    /// burst left a PONG on its way to a client that had all its outcomes and had left (an
    /// undeliverable reply, counted).
    package mutating func sweep(at now: ContinuousClock.Instant, waiting: Bool) -> SweepAction {
        guard waiting else { return SweepAction(sendPing: false) }
        let silence = now - lastHeard
        var action = SweepAction(sendPing: false)
        if silence >= heartbeatInterval, now - lastPing >= heartbeatInterval {
            lastPing = now
            action.sendPing = true
        }
        if !holdsNewRequests, silence >= silenceLimit {
            holdsNewRequests = true
            action.fellSilentAfter = silence
        }
        return action
    }

    /// How long the coordinator has said nothing, while it counts as silent (it has not
    /// answered for heartbeat × liveness while the client waited); `nil` while it answers. A
    /// call that times out then was not left unfinished by a slow worker but by a coordinator
    /// that stopped answering.
    package func silence(at now: ContinuousClock.Instant) -> Duration? {
        holdsNewRequests ? now - lastHeard : nil
    }

    /// Whether a client of a coordinator group should try the next member: it waits, and the
    /// one it talks to has been quiet for two heartbeats (a PING went unanswered).
    package func shouldTryAnotherMember(at now: ContinuousClock.Instant, waiting: Bool) -> Bool {
        waiting && now - lastHeard >= heartbeatInterval * 2
    }

    /// Counts silence from now: a client that moved to another member gives it its own time.
    package mutating func restartSilence(at now: ContinuousClock.Instant) {
        lastHeard = now
    }

    // MARK: A call's last chance

    /// When a call whose caller waits until `deadline` is asked about once more: past the
    /// request's own deadline and most of the coordinator's grace its answer should be here, so a
    /// copy recovers a reply that was lost (the coordinator answers it from its record). The one
    /// resend made without evidence of loss, and never to a silent coordinator.
    package func lastChance(before deadline: ContinuousClock.Instant) -> ContinuousClock.Instant {
        deadline - lastChanceLead
    }
}
