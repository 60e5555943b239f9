import ActionCore
import ActionJournal
import ActionWire
import DequeModule
import Foundation
import Logging

/// Workers' messages: registration, results, adoption after a restart, departures.
extension CoordinatorCore {
    /// Handles a decoded message from a worker.
    package func received(_ message: WorkerMessage, from id: WorkerID, now: ContinuousClock.Instant) {
        switch message {
        case .ready(let registration):
            register(id, registration, now: now)
        case .result(let outcome):
            receivedResults(from: id, now: now) { take in take(outcome) }
        case .resultBatch(let outcomes):
            receivedResults(from: id, now: now) { take in outcomes.forEach(take) }
        case .resent(let outcomes):
            receivedResent(outcomes, from: id, now: now)
        default:
            guard let worker = registry.heardFrom(id, now: now) else {
                if message != .disconnect { _ = outbox.send(.disconnect, to: id) }
                return
            }
            handle(message, from: worker.record, now: now)
            // Work follows once the message is handled: it may be a DISCONNECT or a DRAINING.
            if worker.returning { dispatch(now: now) }
        }
    }

    /// Handles the outcomes of one RESULT, which `read` hands over one at a time as it decodes
    /// them (so that no array of a message's outcomes is made). Credits return and outcomes go
    /// out first; then their work goes out in one pass.
    package func receivedResults(from id: WorkerID, now: ContinuousClock.Instant, _ read: (_ take: (WireOutcome) -> Void) -> Void) {
        guard let worker = registry.heardFrom(id, now: now) else {
            // Unknown (expired, or the coordinator restarted): it must register again. A result
            // may still answer a request recovered from the journal.
            var adopted = false
            read { outcome in
                if outcome.nested { return }
                if adoptRecovered(outcome, now: now, dispatching: false) {
                    adopted = true
                } else {
                    counters.lateResultsDiscarded += 1
                    keepOrphanResult(outcome, now: now)
                }
            }
            _ = outbox.send(.disconnect, to: id)
            if adopted { dispatch(now: now) }
            return
        }
        read { outcome in result(outcome, from: worker.record, now: now, dispatching: false) }
        dispatch(now: now)
    }

    /// Outcomes a worker sent before, sent again after it was welcomed (RESENT): the coordinator
    /// they went to may have lost them (a group's former leader, or this one before a restart).
    /// Each answers a request taken back from the journal and not yet sent out again, as a
    /// late RESULT would; the others were answered here already. They return no credit, and
    /// never answer a request running now: that run's own RESULT does.
    func receivedResent(_ outcomes: [WireOutcome], from id: WorkerID, now: ContinuousClock.Instant) {
        // The empty one that ends them: this worker has said all it knows of the coordinator before.
        if outcomes.isEmpty, let worker = registry[id] {
            workerIsBack(worker.name, now: now)
            return
        }
        var adopted = false
        for outcome in outcomes where !outcome.nested {
            counters.resentResults += 1
            // A request accepted anew since (its client's resend) and not sent out yet is
            // answered as well: the run was of the same request.
            if adoptRecovered(outcome, now: now, dispatching: false, recoveredOnly: false) {
                adopted = true
            } else {
                keepOrphanResult(outcome, now: now)
            }
        }
        if adopted { dispatch(now: now) }
    }

    /// A result for a request this coordinator has no record of (its acceptance was not durable
    /// at the coordinator before): kept, for the client's resend (``OrphanRuns``).
    func keepOrphanResult(_ outcome: WireOutcome, now: ContinuousClock.Instant) {
        guard !outcome.nested, requests[outcome.requestID] == nil else { return }
        orphans.keep(.finished(outcome), of: outcome.requestID, now: now)
    }

    /// `pending`, just accepted, is a request a worker ran or runs for the coordinator before:
    /// that run answers it. A finished run answers it now; a running one is adopted where it
    /// runs, unless requests of its lane wait ahead of it (its session's order comes first),
    /// or its worker cannot take it.
    func answerFromOrphanRun(_ pending: PendingRequest, laneWaits: Bool, now: ContinuousClock.Instant) {
        guard let run = orphans.take(pending.requestID) else { return }
        switch run {
        case .finished(let outcome):
            guard outcome.action == pending.action, outcome.session == pending.session else { return }
            counters.orphanRunsAdopted += 1
            finish(pending, with: outcome, now: now)
        case .running(let id):
            guard !laneWaits, let worker = registry[id], worker.actions.contains(pending.action), worker.freeCredits > 0,
                  !worker.isDraining, !pending.hasSession || (registry.sessions[pending.session]?.worker ?? id) == id else { return }
            takeAsRunning(pending, on: worker, now: now)
            counters.orphanRunsAdopted += 1
        }
    }

    func handle(_ message: WorkerMessage, from worker: WorkerRecord, now: ContinuousClock.Instant) {
        let id = worker.id
        switch message {
        case .ready:
            break
        case .result, .resultBatch, .resent:
            // Taken by receivedResults and receivedResent.
            break
        case .heartbeat:
            break
        case .markedHeartbeat(let mark):
            // Once what this worker sent before it is durable, the worker may let go of the
            // results it kept for a successor (RESENT).
            counters.resultsTakenAnswers += 1
            outbox.sendWhenDurable(.resultsTaken(mark: mark), to: id)
        case .disconnect:
            logger.info("worker left", metadata: ["worker.name": "\(worker.name)"])
            removeWorker(id, countingDelivery: false, now: now)
        case .catalog(let json):
            guard let catalog = try? JSONDecoder().decode(WorkerCatalog.self, from: Data(json)) else {
                counters.malformedWorkerMessages += 1
                logger.warning("a worker's catalog does not decode; its features are listed by name only", metadata: ["worker.name": "\(worker.name)"])
                break
            }
            worker.catalog = catalog
        case .began(let events):
            // Only what it still runs: a request it no longer holds has an outcome already.
            for var event in events where worker.inFlight.contains(event.requestID) {
                event.worker = worker.name
                counters.beganEvents += 1
                let topics = OutcomeTopic.beganTopics(for: event)
                outbox.publish(.began(topic: topics.byAction, events: [event]))
                outbox.publish(.began(topic: topics.bySession, events: [event]))
            }
        case .draining:
            // Its free credits leave the pool; its sessions wait for it to finish, then move.
            guard registry.startDraining(worker) else { break }
            logger.info("worker draining", metadata: ["worker.name": "\(worker.name)", "worker.inFlight": "\(worker.inFlight.count)"])
        }
    }

    /// RFC 7's heartbeat: an MDP/0.1 worker heartbeats every 2.5 s and is dead after 3 missed.
    package static let majordomoWorkerExpiry: Duration = .milliseconds(7_500)

    /// An MDP/0.1 (RFC 7) worker's READY: it serves one action, takes one request at a time
    /// (the protocol has no credits) and is judged by RFC 7's heartbeat, or the coordinator's
    /// when that is longer.
    package func registerMajordomoWorker(
        _ id: WorkerID, service: String, name: String, protocolName: String = "MDP/0.1", now: ContinuousClock.Instant
    ) {
        let expiry = max(Self.majordomoWorkerExpiry, configuration.heartbeatInterval * configuration.heartbeatLiveness)
        register(id, WorkerRegistration(name: name, credits: 1, actions: [service]), expiry: expiry, protocolName: protocolName, now: now)
    }

    /// An MDP/0.1 worker's REPLY to the request it was sent as `requestID` (its "client
    /// address"): the one body frame is the output, JSON when it parses as JSON; more than one
    /// frame fails `invalidOutput`, since an outcome has one output.
    package func receivedMajordomoReply(requestID: String, body: [[UInt8]], from id: WorkerID, now: ContinuousClock.Instant) {
        let request = requests[requestID]
        let result: WireOutcome.Result
        if body.count <= 1 {
            let output = body.first ?? []
            let isJSON = (try? JSONSerialization.jsonObject(with: Data(output), options: [.fragmentsAllowed])) != nil
            result = .success(contentType: isJSON ? WireRequest.json : "application/octet-stream", output: output)
        } else {
            result = .failure(code: ActionError.Code.invalidOutput.rawValue,
                              message: "the MDP/0.1 worker replied with \(body.count) body frames; an outcome has one output")
        }
        // A reply for a request no longer here (answered meanwhile) still returns the credit.
        received(.result(WireOutcome(
            requestID: requestID, action: request?.action ?? "", session: request?.session ?? "",
            worker: registry[id]?.name ?? "", closeActionStack: false, result: result
        )), from: id, now: now)
    }

    func register(
        _ id: WorkerID, _ registration: WorkerRegistration, expiry: Duration? = nil, protocolName: String? = nil,
        now: ContinuousClock.Instant
    ) {
        let record = WorkerRecord(id: id, registration: registration, now: now)
        record.expiry = expiry
        record.protocolName = protocolName
        // The same worker registering again is the same process: what it runs still comes back.
        let replaced = registry.register(record)
        noteServed(record.actions)
        if let replaced { noteUnserved(replaced.actions.subtracting(record.actions)) }
        // Every READY is answered with the terms, so a worker never runs on its own guesses of
        // the coordinator's limit and heartbeat.
        _ = outbox.send(.welcome(WorkerTerms(
            maxMessageBytes: UInt32(clamping: configuration.maxMessageBytes),
            heartbeatMilliseconds: WireRequest.timeoutMilliseconds(configuration.heartbeatInterval),
            heartbeatLiveness: UInt32(clamping: configuration.heartbeatLiveness), epoch: epoch
        )), to: id)
        // Then the fleet's switches and what to report, always: a worker that kept either from a
        // coordinator that restarted gets them as they are now.
        _ = outbox.send(.switches(featureSwitches), to: id)
        _ = outbox.send(.reporting(began: beganWanted), to: id)
        let adopted = adoptRunning(registration.running, on: record, now: now)
        journalWorkersIfChanged()
        // An ActionBus worker has said all it knows of the coordinator before once its results
        // sent again have ended (an empty RESENT); a Majordomo worker, now.
        if protocolName != nil { workerIsBack(registration.name, now: now) }
        logger.info("worker registered", metadata: [
            "worker.name": "\(registration.name)", "worker.credits": "\(registration.credits)",
            "worker.actions": "\(registration.actions.count)", "worker.adopted": "\(adopted)",
        ])
        dispatch(now: now)
    }

    /// Requests a registering worker says it runs, started for an earlier coordinator (this
    /// one before a restart, or a group's former leader): each that is here unfinished and
    /// not yet sent out again is taken as running there, as if this coordinator had sent it,
    /// so it runs once. Returns how many were adopted.
    func adoptRunning(_ requestIDs: [String], on worker: WorkerRecord, now: ContinuousClock.Instant) -> Int {
        var adopted = 0
        for requestID in requestIDs {
            guard let pending = requests[requestID] else {
                // Not recorded here: a resend of it finds it running there.
                orphans.keep(.running(worker.id), of: requestID, now: now)
                continue
            }
            guard !pending.isFinished, pending.placement == .queued,
                  worker.actions.contains(pending.action), worker.freeCredits > 0, !worker.isDraining else { continue }
            takeAsRunning(pending, on: worker, now: now)
            adopted += 1
        }
        counters.adoptedRunning += adopted
        return adopted
    }

    /// Takes queued `pending` as running on `worker`, where an earlier coordinator sent it, as
    /// if this one had: its delivery counts as this one's, and its session is hosted there.
    func takeAsRunning(_ pending: PendingRequest, on worker: WorkerRecord, now: ContinuousClock.Instant) {
        // Its lane entry goes stale; dispatch steps over it.
        scheduler.leaveQueue()
        pending.placement = .running(on: worker.id)
        pending.deliveries += 1
        registry.take(pending, on: worker)
        if pending.hasSession, registry.sessions[pending.session] == nil { registry.pin(pending.session, to: worker, now: now) }
    }

    /// Worker `name` has said what it runs and sent again what it finished: once every worker
    /// the journal named is back, the hold ends, and what it held goes out.
    func workerIsBack(_ name: String, now: ContinuousClock.Instant) {
        guard awaitedWorkers.remove(name) != nil, awaitedWorkers.isEmpty, adoptionHoldUntil != nil else { return }
        adoptionHoldUntil = now
        endAdoptionHold(now: now)
    }

    /// Journals the registered workers' names when the set changed: the next coordinator on
    /// this journal waits for them to say what they run. Below the disk minimum it waits, as
    /// the known actions do, for the next change once there is room.
    func journalWorkersIfChanged() {
        let names = Set(registry.workers.values.map(\.name))
        guard names != journaledWorkers, !refusesForStorage else { return }
        journaledWorkers = names
        outbox.journal(.workers(names.sorted()))
    }

    /// Whether `pending` waits for the worker running it to register again: a request taken
    /// back from the journal may be running on a worker of the coordinator before (its
    /// READY says so), so for ``adoptionHoldUntil`` after the start it is not sent anywhere.
    func waitsForAdoption(_ pending: PendingRequest, now: ContinuousClock.Instant) -> Bool {
        // Requests accepted meanwhile wait too: a client's resend of one the coordinator before
        // never recorded is answered by its run, once its worker has said so (``OrphanRuns``).
        guard let until = adoptionHoldUntil else { return false }
        return now < until
    }

    /// Past the hold, what it held goes out.
    func endAdoptionHold(now: ContinuousClock.Instant) {
        guard let until = adoptionHoldUntil, now >= until else { return }
        adoptionHoldUntil = nil
        logger.info("adoption hold ended", metadata: [
            "adoption.heldFor": "\(now - adoptionHoldStartedAt)", "adoption.workersNotBack": "\(awaitedWorkers.count)",
            "adoption.adoptedRunning": "\(counters.adoptedRunning)", "adoption.adoptedResults": "\(counters.adoptedResults)",
        ])
        dispatch(now: now)
    }

    func result(_ outcome: WireOutcome, from worker: WorkerRecord, now: ContinuousClock.Instant, dispatching: Bool = true) {
        let id = worker.id
        if outcome.nested {
            nestedPerform(outcome, now: now)
            return
        }
        guard let sent = registry.release(outcome.requestID, from: worker) else {
            if !adoptRecovered(outcome, now: now, dispatching: dispatching) {
                counters.lateResultsDiscarded += 1
                keepOrphanResult(outcome, now: now)
            }
            return
        }
        if !outcome.session.isEmpty, let pin = registry.sessions[outcome.session], pin.worker == id { pin.lastUsed = now }
        // Unfinished, it is still in the table: a request leaves it only by finishing.
        if !sent.isFinished, sent.placement == .running(on: id) {
            finish(sent, with: outcome, now: now)
        } else {
            // Cancelled or timed out while it ran: the client already has its answer.
            counters.lateResultsDiscarded += 1
        }
        if dispatching { dispatch(now: now) }
    }

    /// A worker that ran a request before the coordinator restarted reports its result: if the
    /// recovered request has not been sent out again, the result answers it and nothing reruns.
    /// Work follows once the whole RESULT is read (`dispatching` false): sent at once, a queued
    /// request could go to this worker and a later result in the same message, of its earlier
    /// run, would be taken for the new one's, which the worker would then run again.
    func adoptRecovered(_ outcome: WireOutcome, now: ContinuousClock.Instant, dispatching: Bool = true, recoveredOnly: Bool = true) -> Bool {
        guard let pending = requests[outcome.requestID], !pending.isFinished, pending.recovered || !recoveredOnly, pending.placement == .queued,
              pending.action == outcome.action, pending.session == outcome.session else { return false }
        counters.adoptedResults += 1
        finish(pending, with: outcome, now: now)
        if dispatching { dispatch(now: now) }
        return true
    }

    /// Declares a worker gone and requeues what it held.
    func removeWorker(_ id: WorkerID, countingDelivery: Bool, now: ContinuousClock.Instant) {
        guard let worker = registry.remove(id) else { return }
        journalWorkersIfChanged()
        // Requests still waiting to go to it are requeued below with the rest: they must not
        // leave, and since it never had them, their delivery does not count.
        let withdrawn = Set(outbox.withdrawRequests(to: id))
        noteUnserved(worker.actions)
        var requeued: [PendingRequest] = []
        for pending in worker.inFlight.requests {
            guard !pending.isFinished, pending.placement == .running(on: id) else { continue }
            let counts = countingDelivery && (withdrawn.isEmpty || !withdrawn.contains(pending.requestID))
            if counts && pending.deliveries >= configuration.maxDeliveries {
                let message = "the request was delivered \(pending.deliveries) times and its worker died each time"
                finish(pending, with: .failure(for: pending.request, code: BusErrorCode.poisoned, message: message), now: now)
                continue
            }
            if counts {
                outbox.journal(.workerDied(requestID: pending.requestID))
            } else {
                pending.deliveries -= 1
            }
            pending.placement = .queued
            requeued.append(pending)
        }
        counters.redelivered += requeued.count
        // Back to the head of their lanes, in acceptance order.
        for pending in requeued.sorted(by: { $0.order > $1.order }) {
            enqueue(pending, atHead: true)
        }
        dispatch(now: now)
    }

    /// Its connection is gone. That is not yet its death: a worker reconnects under the same
    /// routing id (after a coordinator stall, say) and what it runs still comes back. Until it
    /// is heard from again it gets nothing; if it never is, it expires like any silent worker.
    func markUnreachable(_ id: WorkerID) {
        guard let worker = registry.markUnreachable(id) else { return }
        logger.info("worker unreachable; waiting for it to reconnect or expire", metadata: [
            "worker.name": "\(worker.name)", "worker.inFlight": "\(worker.inFlight.count)",
        ])
    }

    /// Whether `requestID` is accepted and has no outcome yet (a deferred ACCEPTED still says
    /// something new only then).
    package func awaitsOutcome(_ requestID: String) -> Bool {
        requests[requestID].map { !$0.isFinished } ?? false
    }
}
