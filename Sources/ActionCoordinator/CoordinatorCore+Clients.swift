import ActionCore
import ActionJournal
import ActionWire
import DequeModule
import Foundation
import Logging

/// Clients' messages: admission (new requests, resends, conflicts, shares, refusals), cancels, acknowledgements and queries.
extension CoordinatorCore {
    /// The most outcomes one REPLAY-REPLY carries.
    static let replayOutcomes = 1_000
    /// The most kept outcomes one REPLAY looks at (a filter that matches little must not hold
    /// the loop for the whole history).
    static let replayScanned = 50_000

    /// Handles a decoded message from a client.
    package func received(_ message: ClientMessage, from client: ClientAddress, now: ContinuousClock.Instant) {
        switch message {
        case .perform(let request):
            if perform(request, input: request.input[...], from: client, now: now, nowOffset: ClockOffset.of(now)) {
                outbox.send(.accepted(requestID: request.requestID), to: client)
            }
        case .performBatch(let requests):
            receivedPerforms(count: requests.count, from: client, now: now) { take in
                for request in requests { take(request, request.input[...]) }
            }
        case .cancel(let requestID):
            cancel(requestID, from: client, now: now)
        case .acknowledge(let requestIDs):
            receivedAcknowledgements(from: client) { take in
                for requestID in requestIDs { IDTag.withBytes(of: requestID, take) }
            }
        case .stacks(let queryID, let session):
            let report = stacks.report(sessionName: session.isEmpty ? nil : session)
            outbox.send(.stacks(queryID: queryID, json: FleetReports.stacksJSON(report, maxMessageBytes: configuration.maxMessageBytes)), to: client)
        case .endSession(let queryID, let session):
            let closed = endSession(session)
            let json = FleetReports.stacksJSON(ActionStacksReport(stacks: closed), maxMessageBytes: configuration.maxMessageBytes)
            outbox.send(.stacks(queryID: queryID, json: json), to: client)
        case .features(let queryID, let changes):
            if let refusal = switchFeatures(changes) {
                outbox.send(.error(requestID: queryID, code: BusErrorCode.malformedRequest, message: refusal), to: client)
            } else {
                outbox.send(.features(queryID: queryID, json: featuresJSON()), to: client)
            }
        case .workers(let queryID):
            let json = FleetReports.workersJSON(workersReport(now: now), maxMessageBytes: configuration.maxMessageBytes)
            outbox.sendUnheld(.workers(queryID: queryID, json: json), to: client)
        case .queues(let queryID):
            let json = FleetReports.queuesJSON(queuesReport(), maxMessageBytes: configuration.maxMessageBytes)
            outbox.sendUnheld(.queues(queryID: queryID, json: json), to: client)
        case .replay(let queryID, let prefix, let from):
            counters.replays += 1
            // Only what passed the commit gate is in it: it waits for nothing.
            let chunk = history.chunk(
                from: from, prefix: prefix, maxOutcomes: Self.replayOutcomes, maxBytes: configuration.maxMessageBytes / 2,
                maxScanned: Self.replayScanned, instance: instance
            )
            outbox.sendUnheld(.replayed(queryID: queryID, chunk: chunk.bytes), to: client)
        case .ping:
            outbox.sendUnheld(.pong(instance: instance, epoch: epoch), to: client)
        case .stats(let queryID):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let json = (try? encoder.encode(statistics)).map { Array($0) } ?? Array("{}".utf8)
            outbox.sendUnheld(.stats(queryID: queryID, json: json), to: client)
        }
    }

    /// Ends `session` for a client: closes its open stacks here and tells the worker hosting it
    /// to close its own. Requests of the session still queued or running record in new stacks
    /// when they finish, as a perform after `ActionSession.end()` does in process. The session
    /// is unpinned when nothing of it waits or runs, so its next request may go anywhere.
    func endSession(_ session: String) -> [ActionStackSnapshot] {
        counters.sessionsEnded += 1
        let closed = stacks.closeStacks(sessionName: session)
        sessionActivity[session] = nil
        outcomes.forget(sessions: [session])
        if let pin = registry.sessions[session] {
            _ = outbox.send(.endSession(session), to: pin.worker)
            let busy = scheduler.holds(.session(session)) || registry[pin.worker].map { registry.runs(session, on: $0) } ?? false
            if !busy { registry.unpin(session) }
        }
        logger.debug("session ended", metadata: ["session": "\(session)", "action.stacksClosed": "\(closed.count)"])
        return closed
    }

    /// Applies an operator's feature switches; when anything changed, journals the new set and
    /// sends it to every worker, which refuses the actions of a feature switched off
    /// (`featureUnavailable`) and switches its runtime-switched conditional features to match.
    /// Returns why the changes were refused, or `nil` when they were applied.
    func switchFeatures(_ changes: [String: FeatureSwitch]) -> String? {
        var switches = featureSwitches
        for (feature, state) in changes {
            switches[feature] = state == .cleared ? nil : state
        }
        // SWITCHES carries the whole set, and a worker takes at most this many.
        let limit = WireLimits().maxActionsPerWorker
        guard switches.count <= limit else {
            return "the fleet would have \(switches.count) feature switches; at most \(limit) are kept (clear some first)"
        }
        guard switches != featureSwitches else { return nil }
        featureSwitches = switches
        counters.featureSwitchChanges += 1
        outbox.journal(.featureSwitches(switches))
        for id in registry.workers.keys { _ = outbox.send(.switches(switches), to: id) }
        logger.notice("feature switches changed", metadata: [
            "features.off": "\(switches.filter { $0.value == .off }.keys.sorted())",
            "features.on": "\(switches.filter { $0.value == .on }.keys.sorted())",
        ])
        return nil
    }

    /// The FEATURES report: every feature the registered workers serve (its actions, how many
    /// workers serve it, its switch) and the switches of features no worker serves now.
    func featuresJSON() -> [UInt8] {
        FleetReports.featuresJSON(workers: registry.workers.values, switches: featureSwitches, maxMessageBytes: configuration.maxMessageBytes)
    }

    /// Every registered worker, by name.
    package func workersReport(now: ContinuousClock.Instant) -> FleetWorkersReport {
        FleetReports.workers(registry.workers.values, now: now)
    }

    /// What waits and runs per action, and the sessions with the most waiting.
    func queuesReport() -> FleetQueuesReport {
        FleetReports.queues(
            lanes: scheduler.lanes, workers: registry.workers, sessions: registry.sessions, queued: scheduler.queuedCount,
            running: unfinishedCount - scheduler.queuedCount, unservedSince: knownActions.actions.compactMapValues { $0 }
        )
    }

    /// The open stacks of `session`, or of every session.
    func stacksReport(session: String?) -> ActionStacksReport {
        stacks.report(sessionName: session)
    }

    /// Handles the requests of one PERFORM, which `read` hands over one at a time as it decodes
    /// them (so that no array of a message's requests is made): accepted in order, then
    /// dispatched once, so the lanes fill before workers are chosen. One ACCEPTED names every
    /// request of the message that was accepted.
    ///
    /// `take`'s second argument is the request's input: where a decode left it in its message
    /// (``WireRequest/unpackLeavingInput(_:command:limits:)``; the request's own is then
    /// empty), or the request's own. The pending request copies it from there.
    package func receivedPerforms(
        count: Int, from client: ClientAddress, now: ContinuousClock.Instant,
        _ read: (_ take: (WireRequest, _ input: ArraySlice<UInt8>) -> Void) -> Void
    ) {
        var accepted: [String] = []
        accepted.reserveCapacity(count)
        let nowOffset = ClockOffset.of(now)
        read { request, input in
            if perform(request, input: input, from: client, now: now, nowOffset: nowOffset, dispatching: false) {
                accepted.append(request.requestID)
            }
        }
        if !accepted.isEmpty { outbox.send(.accepted(requestIDs: accepted), to: client) }
        dispatch(now: now)
    }

    /// Handles an ACK, whose request ids `read` hands over one at a time as the bytes they came
    /// in (each checked as a name): no `String` or array of them is made.
    package func receivedAcknowledgements(from client: ClientAddress, _ read: (_ take: (UnsafeRawBufferPointer) -> Void) -> Void) {
        // An id the client made itself (`clientID:n`, its client id being its routing id) is
        // never sent again once acknowledged; an idempotency key may be, from anywhere.
        let ownPrefix = client.routingID + [UInt8(ascii: ":")]
        read { requestID in
            // Only an owed outcome changes: found and taken out in one probe. (A recent one,
            // kept under an idempotency key, stays until it is evicted.)
            guard let owed = requests.remove(idBytes: requestID, if: { $0.isFinished }) else { return }
            outcomes.settle(owed, keep: !requestID.starts(with: ownPrefix))
        }
    }

    /// Takes a PERFORM; returns whether the request is accepted (new, or a resend of one still
    /// in progress), for the caller to say so in an ACCEPTED. Anything else is answered here.
    /// `input` is the request's input: its own, or where its decode left it in the message.
    /// `nowOffset` is `now` as a ``ClockOffset``, worked out once for a message's requests.
    func perform(
        _ request: WireRequest, input: ArraySlice<UInt8>, from client: ClientAddress, now: ContinuousClock.Instant,
        nowOffset: Int64, dispatching: Bool = true
    ) -> Bool {
        // Hashed once for the tables it is looked for or kept in.
        let idTag = RequestTable.tag(of: request.requestID)
        let found = requests[request.requestID, tag: idTag]
        if let (outcome, origin) = outcomes.kept(request.requestID, idTag: idTag, found: found) {
            if let owner = origin?.firstSender, !client.mayActOn(requestID: request.requestID, firstSentBy: owner) {
                refuseNotOwner(request, from: client)
                return false
            }
            if let conflict = Admission.conflict(request, input: input, original: (outcome.action, outcome.session, origin?.inputDigest)) {
                refuseConflict(request, from: client, conflict)
                return false
            }
            counters.duplicates += 1
            outbox.send(.outcome(outcome), to: client)
            return false
        }
        if let pending = found {
            if let owner = pending.firstSender, !client.mayActOn(requestID: request.requestID, firstSentBy: owner) {
                refuseNotOwner(request, from: client)
                return false
            }
            if let conflict = Admission.conflict(request, input: input, original: (pending.action, pending.session, pending.inputDigest)) {
                refuseConflict(request, from: client, conflict)
                return false
            }
            // A resend of a request still in progress: answer to wherever the client is now.
            counters.duplicates += 1
            pending.client = client
            return true
        }
        guard PendingRequest.fits(request, input: input) else {
            // The wire codec's limits are far lower: only a request made in this process gets here.
            counters.malformedClientMessages += 1
            let message = "request \(request.requestID) has an empty content type, a name over \(PendingRequest.maxNameBytes) bytes or an input over \(PendingRequest.maxInputBytes) bytes"
            outbox.send(.outcome(.failure(for: request, code: BusErrorCode.malformedRequest, message: message)), to: client)
            return false
        }
        if refusesForStorage {
            refuseStorageFull(request, from: client)
            return false
        }
        if let refusal = replication.refusal {
            refuseUnavailable(request, from: client, refusal)
            return false
        }
        if let refusal = admission.fullRefusal(unfinished: unfinishedCount) {
            refuseOverloaded(request, from: client, refusal)
            return false
        }
        let sender = admission.sender(client)
        if let refusal = admission.shareRefusal(sender) {
            refuseOverloaded(request, from: client, refusal)
            return false
        }
        let share = sender.share
        let timeout = timeoutNanoseconds(asked: request.timeoutMilliseconds)
        nextOrder += 1
        let pending = PendingRequest.make(
            request, input: input, sender: sender, order: nextOrder, deadlineOffset: nowOffset.addingSaturating(timeout), idTag: idTag
        )
        requests.insert(pending)
        share.unfinished += 1
        if registry.isServed(request.action) {
            deadlines.insert(pending)
        } else if knownActions.isKnown(request.action) {
            // The fleet serves it, but no worker does now (one restarting, a fleet scaling up
            // from zero): it waits for one within its deadline, or the operator's cap.
            deadlines.insert(pending, at: configuration.maxWaitForWorker.map { min(pending.deadline, now + $0) } ?? pending.deadline)
        } else {
            // Fail fast when the fleet has never served it (a typo, a missing worker), after a
            // short grace for a worker that is just starting, and after a restart for the workers
            // to come back; a check finding it served puts it back at its deadline.
            let check = max(now + configuration.noWorkerGrace, startedAt + configuration.noWorkerGrace + restartGrace)
            deadlines.insert(pending, at: min(pending.deadline, check))
        }
        // Its lane from the request's names, which a batch's records share, rather than names
        // made again from the pending request's bytes.
        let lane = Lane(request)
        // Whether requests of its lane wait ahead of it (read before it joins them).
        let laneWaits = !orphans.isEmpty && scheduler.holds(lane)
        scheduler.enqueue(pending, lane: lane, atHead: false)
        counters.accepted += 1
        // Its bytes as it is held: one copy, where a `WireRequest` with its input copied and
        // its fields packed again on the journal's thread cost a journaling coordinator 7 %.
        outbox.journal(pending.acceptance(deadline: wallClock().addingTimeInterval(Double(timeout) / 1e9)))
        if !orphans.isEmpty { answerFromOrphanRun(pending, laneWaits: laneWaits, now: now) }
        if dispatching { dispatch(now: now) }
        return true
    }

    func refuseConflict(_ request: WireRequest, from client: ClientAddress, _ difference: String) {
        counters.idempotencyConflicts += 1
        let message = "request id \(request.requestID) was first used with \(difference); a resend must repeat the request exactly, and a new request needs a new id"
        outbox.send(.outcome(.failure(for: request, code: BusErrorCode.idempotencyConflict, message: message)), to: client)
    }

    func refuseNotOwner(_ request: WireRequest, from client: ClientAddress) {
        counters.notOwner += 1
        let message = "request id \(request.requestID) belongs to another client; only the client that sent it may resend or cancel it"
        outbox.send(.outcome(.failure(for: request, code: BusErrorCode.notOwner, message: message)), to: client)
    }

    /// After a restart workers need a few heartbeats to find the coordinator again: no request
    /// fails `noWorker` early before they had the time.
    var restartGrace: Duration { configuration.heartbeatInterval * (configuration.heartbeatLiveness + 1) }

    func refuseOverloaded(_ request: WireRequest, from client: ClientAddress, _ message: String) {
        counters.overloaded += 1
        outbox.send(.outcome(.failure(for: request, code: BusErrorCode.overloaded, message: message)), to: client)
    }

    func cancel(_ requestID: String, from client: ClientAddress, now: ContinuousClock.Instant) {
        let idTag = RequestTable.tag(of: requestID)
        let found = requests[requestID, tag: idTag]
        let kept = outcomes.kept(requestID, idTag: idTag, found: found)
        let pending = found.flatMap { $0.isFinished ? nil : $0 }
        let owner = pending?.firstSender ?? kept?.origin?.firstSender
        if let owner, !client.mayActOn(requestID: requestID, firstSentBy: owner) {
            counters.notOwner += 1
            outbox.send(.error(requestID: requestID, code: BusErrorCode.notOwner,
                               message: "request \(requestID) belongs to another client; only the client that sent it may cancel it"), to: client)
            return
        }
        if let kept {
            outbox.send(.outcome(kept.outcome), to: client)
            return
        }
        guard let pending else {
            outbox.send(.error(requestID: requestID, code: BusErrorCode.unknownRequest, message: "no request \(requestID) is pending"), to: client)
            return
        }
        if case .running(let worker) = pending.placement {
            // The worker's credit stays out until it answers; its late result is discarded.
            _ = outbox.send(.cancel(requestID: requestID), to: worker)
        }
        pending.client = client
        finish(pending, with: .failure(for: pending.request, code: BusErrorCode.cancelled, message: "cancelled by the client"), now: now)
        dispatch(now: now)
    }
}
