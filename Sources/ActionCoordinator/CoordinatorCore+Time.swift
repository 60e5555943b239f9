import ActionCore
import ActionJournal
import ActionWire
import DequeModule
import Foundation
import Logging

/// The timer: heartbeats, expiries, deadlines, idle sweeps.
extension CoordinatorCore {
    /// Sends due heartbeats, expires silent workers and fails requests past their deadline.
    package func tick(now: ContinuousClock.Instant) {
        let expiry = configuration.heartbeatInterval * configuration.heartbeatLiveness
        for (id, worker) in registry.workers {
            // A Majordomo worker sends nothing while its code runs a request (neither RFC 7 nor
            // RFC 18 heartbeats from inside the work): its silence counts once that request's
            // deadline has passed, or after `majordomoBusyTimeout`, whichever comes first.
            let busyMajordomo = worker.expiry != nil && now - worker.lastHeard < configuration.majordomoBusyTimeout
                && worker.inFlight.requests.contains { !$0.isFinished && now < $0.deadline }
            if now - worker.lastHeard > worker.expiry ?? expiry, !busyMajordomo {
                counters.workersExpired += 1
                logger.warning("worker lost", metadata: [
                    "worker.name": "\(worker.name)", "worker.inFlight": "\(worker.inFlight.count)", "worker.reason": "heartbeats stopped",
                ])
                removeWorker(id, countingDelivery: true, now: now)
            } else if now - worker.lastHeartbeatSent >= configuration.heartbeatInterval {
                worker.lastHeartbeatSent = now
                if !outbox.send(.heartbeat, to: id) { markUnreachable(id) }
            }
        }
        expireDeadlines(now: now)
        endAdoptionHold(now: now)
        if let last = lastSweep, now - last < .seconds(1) { return }
        lastSweep = now
        forgetIdleSessions(now: now)
        forgetExpiredActions()
        admission.forgetIdleClients()
        closeIdleStacks(now: now)
        expireOwedOutcomes(now: now)
        history.forgetExpired(now: wallMilliseconds(at: now))
    }

    /// `now` on the wall clock, in milliseconds since 1970 (the stream history's timestamps):
    /// worked out from the monotonic `now` every call brings, not a clock read per outcome.
    func wallMilliseconds(at now: ContinuousClock.Instant) -> UInt64 {
        UInt64(max(0, wallMillisecondsAtEpoch + ClockOffset.of(now) / 1_000_000))
    }

    /// `date` in milliseconds since 1970.
    static func milliseconds(since1970 date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Owed outcomes whose clients stopped waiting become recent (and may be evicted).
    func expireOwedOutcomes(now: ContinuousClock.Instant) {
        for owed in outcomes.dueOwed(now: now) {
            requests.remove(owed)
            outcomes.settle(owed, keep: true)
        }
    }

    /// Closes the action stacks, and forgets the stream counters, of sessions that finished
    /// nothing for `stackIdleTimeout`: a session its clients never end (END-SESSION) ends by idleness.
    func closeIdleStacks(now: ContinuousClock.Instant) {
        let idle = Set(sessionActivity.filter { now - $0.value > configuration.stackIdleTimeout }.keys)
        for session in idle {
            sessionActivity[session] = nil
            counters.idleStacksClosed += stacks.closeStacks(sessionName: session).count
        }
        outcomes.forget(sessions: idle)
    }

    /// The coordinator's own thread was held up for `stall` (a VM pause, a huge report): its
    /// workers' silence during that time is its own, not theirs, so none is declared dead for it:
    /// each gets a full liveness period from `now` to be heard again (it may be reconnecting).
    package func excuseStall(_ stall: Duration, now: ContinuousClock.Instant) {
        for worker in registry.workers.values {
            worker.lastHeard = max(worker.lastHeard + stall, now)
        }
        counters.stalls += 1
        logger.warning("coordinator stalled; worker silence during the stall is not held against them", metadata: ["stall": "\(stall)"])
    }

    /// Unpins sessions nothing was sent to or heard from for `sessionIdleTimeout` (workers drop
    /// their ActionSessions after the same idle time), so the pin table does not grow with every
    /// session name ever seen. Swept at most once a second.
    func forgetIdleSessions(now: ContinuousClock.Instant) {
        let idle = registry.sessions.filter { now - $0.value.lastUsed > configuration.sessionIdleTimeout }
        for (session, pin) in idle {
            // A session stays pinned while any of its requests waits or runs: moving it then
            // would let its next request run beside (or before) them on another worker.
            if scheduler.holds(.session(session)) { continue }
            if let host = registry[pin.worker], registry.runs(session, on: host) { continue }
            registry.unpin(session)
        }
    }

    func expireDeadlines(now: ContinuousClock.Instant) {
        var expired: [PendingRequest] = []
        for pending in deadlines.removeDue(now: now) where !pending.isFinished {
            switch pending.placement {
            case .queued where now >= pending.deadline:
                expired.append(pending)
            case .queued:
                // The early check of a request no registered worker served when it came; one
                // that has been delivered since was served, and waits for its deadline. One for
                // a known action came to the operator's cap (--max-wait-for-worker), unserved.
                if pending.deliveries > 0 || registry.isServed(pending.action) {
                    deadlines.insert(pending)
                } else {
                    expired.append(pending)
                }
            case .running(let worker) where now >= pending.deadline + configuration.deadlineGrace:
                // The worker's own timeout fired long ago, so it runs nothing for this request
                // any more: its answer was lost (a dropped connection), and so is not coming.
                // Take the request off it, so its credit does not leak.
                if let holder = registry[worker] { registry.release(pending, from: holder) }
                expired.append(pending)
            case .running:
                // The worker normally answers `timedOut` itself; give it the grace.
                deadlines.insert(pending, at: max(pending.deadline + configuration.deadlineGrace, now))
            }
        }
        guard !expired.isEmpty else { return }
        let served = registry.servedActions
        var suggestions: [String: String?] = [:]
        for pending in expired.sorted(by: { $0.order < $1.order }) {
            finish(pending, with: expiredOutcome(pending, served: served, suggestions: &suggestions, now: now), now: now)
        }
        // A removed request may have been holding back later requests of its session.
        dispatch(now: now)
    }

    /// `served` and `suggestions` are shared by every request expiring in one tick: a burst of
    /// requests for an unserved action computes the list and the suggestion once.
    func expiredOutcome(
        _ pending: PendingRequest, served: Set<String>, suggestions: inout [String: String?], now: ContinuousClock.Instant
    ) -> WireOutcome {
        let action = pending.action
        guard pending.placement == .queued, !served.contains(action) else {
            return .failure(for: pending.request, code: BusErrorCode.timedOut, message: "the request's deadline passed before it completed")
        }
        if knownActions.isKnown(action) {
            let waited = now >= pending.deadline ? "within the request's deadline" : "within --max-wait-for-worker"
            let why = knownActions.unservedSince(action).map { "none has served it since \(Self.timestamp($0))" }
                ?? "the workers serving it are draining or unreachable"
            let message = "no worker serving \(action) came \(waited); \(why)"
            return .failure(for: pending.request, code: BusErrorCode.noWorker, message: message)
        }
        let names = served.sorted()
        var message = "no worker serves \(action)"
        if suggestions[action] == nil { suggestions[action] = ActionNameSuggestion.closest(to: action, among: names) }
        if let suggestion = suggestions[action] ?? nil {
            message += "; did you mean \(suggestion)?"
        }
        message += names.isEmpty ? " (no worker is registered)" : " (workers serve \(names.joined(separator: ", ")))"
        return .failure(for: pending.request, code: BusErrorCode.noWorker, message: message)
    }
}
