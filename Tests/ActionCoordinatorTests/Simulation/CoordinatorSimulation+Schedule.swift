import ActionCoordinator
import ActionWire
import Foundation

extension CoordinatorSimulation {
    /// Runs `steps` random steps, then lets the bus settle and checks that everything sent was
    /// answered and that nothing is left behind.
    func run(steps: Int) throws {
        for _ in 0..<random.int(1...3) { startWorker() }
        try commit()
        for _ in 0..<steps {
            try step()
        }
        try settle()
    }

    private var upWorkers: [SimulatedWorker] { workers.filter { $0.state == .up } }

    /// One random step.
    func step() throws {
        switch random.int(0...999) {
        case 0..<250: submit()
        case 250..<330: resend()
        case 330..<410: acknowledge()
        case 410..<430: cancel()
        case 430..<470: ping()
        case 470..<720: finishSome()
        case 720..<900: try advance(by: .milliseconds(random.int(20...450)))
        case 900..<930: if upWorkers.count < 4 { startWorker() }
        case 930..<945: crashWorker()
        case 945..<960: pauseWorker()
        case 960..<975: resumeWorker()
        case 975..<985: workerLeaves()
        case 985..<992: note("restart"); try restartCoordinator()
        case 992..<996:
            // Dies while committing a batch of new requests: part of it on disk, none of it told.
            submit()
            let (_, records) = outbox.takeBatch()
            note("restart-torn \(records.count) records")
            try restartCoordinator(torn: records)
            return
        default: note("compact"); compact()
        }
        try commit()
    }

    // MARK: Clients

    func submit() {
        let client = random.pick(clients)
        let count = random.chance(0.8) ? 1 : random.int(2...5)
        var requests: [WireRequest] = []
        for _ in 0..<count {
            let action = random.chance(0.95) ? Self.served : Self.typo
            let timeout: UInt32 = random.chance(0.8) ? 0 : UInt32(random.int(500...8_000))
            requests.append(client.makeRequest(action: action, session: random.pick(Self.sessions), timeoutMilliseconds: timeout))
        }
        note("submit \(client.name) \(requests.map { "\($0.requestID)@\($0.session)" })")
        if requests.count == 1 {
            core.received(.perform(requests[0]), from: client.address, now: now)
        } else {
            core.received(.performBatch(requests), from: client.address, now: now)
        }
    }

    private func resend() {
        let client = random.pick(clients)
        let unanswered = client.unanswered
        guard !unanswered.isEmpty else { return }
        let request = random.pick(unanswered)
        note("resend \(request.requestID)")
        core.received(.perform(request), from: client.address, now: now)
    }

    private func acknowledge() {
        let client = random.pick(clients)
        let ids = client.takeAcknowledgements(limit: random.int(1...6))
        guard !ids.isEmpty else { return }
        note("ack \(ids)")
        core.received(.acknowledge(requestIDs: ids), from: client.address, now: now)
    }

    private func cancel() {
        let client = random.pick(clients)
        let unanswered = client.unanswered
        guard !unanswered.isEmpty else { return }
        let request = random.pick(unanswered)
        note("cancel \(request.requestID)")
        core.received(.cancel(requestID: request.requestID), from: client.address, now: now)
    }

    private func ping() {
        let client = random.pick(clients)
        note("ping \(client.name)")
        core.received(.ping, from: client.address, now: now)
    }

    // MARK: Workers

    func startWorker() {
        nextWorkerNumber += 1
        let worker = SimulatedWorker(
            number: nextWorkerNumber, credits: UInt32(random.int(1...4)), actions: [Self.served, "Other.thing"], now: now
        )
        workers.append(worker)
        note("worker-start \(worker.name) credits \(worker.credits)")
        register(worker)
    }

    private func register(_ worker: SimulatedWorker) {
        worker.needsRegistration = false
        worker.lastHeartbeat = now
        worker.lastSpoke = now
        core.received(.ready(worker.registration), from: worker.id, now: now)
    }

    /// An up worker finishes one to three of what it may finish now, in one RESULT or a batch.
    private func finishSome() {
        let candidates = upWorkers.filter { !$0.runnable.isEmpty }
        guard !candidates.isEmpty else { return }
        let worker = random.pick(candidates)
        var outcomes: [WireOutcome] = []
        for _ in 0..<random.int(1...3) {
            let runnable = worker.runnable
            guard !runnable.isEmpty else { break }
            outcomes.append(worker.finish(at: random.pick(runnable)))
        }
        note("result \(worker.name) \(outcomes.map(\.requestID))")
        send(outcomes, from: worker)
        if random.chance(0.05) { duplicateResult(of: worker) }
    }

    private func send(_ outcomes: [WireOutcome], from worker: SimulatedWorker) {
        worker.lastSpoke = now
        if outcomes.count == 1 {
            core.received(.result(outcomes[0]), from: worker.id, now: now)
        } else {
            core.received(.resultBatch(outcomes), from: worker.id, now: now)
        }
    }

    /// A worker's last result arrives again, right behind the first (a duplicate on the way).
    /// Not an older one: results carry no run number, so a stale duplicate arriving after the
    /// same id was sent to that worker again would answer the new run, and nothing on the real
    /// wire (ZeroMQ over TCP, results sent once) makes one.
    private func duplicateResult(of worker: SimulatedWorker) {
        let (requestID, outcome) = worker.finished[worker.finished.count - 1]
        note("duplicate-result \(worker.name) \(requestID)")
        core.received(.result(outcome), from: worker.id, now: now)
    }

    private func crashWorker() {
        let candidates = workers.filter { $0.state == .up || $0.state == .paused }
        guard !candidates.isEmpty else { return }
        let worker = random.pick(candidates)
        note("worker-crash \(worker.name) holding \(worker.held.map(\.request.requestID))")
        worker.state = .crashed
        worker.held = []
    }

    private func pauseWorker() {
        let candidates = upWorkers
        guard !candidates.isEmpty else { return }
        let worker = random.pick(candidates)
        note("worker-pause \(worker.name)")
        worker.state = .paused
    }

    func resumeWorker(_ chosen: SimulatedWorker? = nil) {
        let candidates = workers.filter { $0.state == .paused }
        guard let worker = chosen ?? (candidates.isEmpty ? nil : random.pick(candidates)) else { return }
        note("worker-resume \(worker.name)")
        worker.state = .up
        // Silent past its expiry, it may have been given up: what it runs may run elsewhere.
        if now - worker.lastSpoke >= configuration.heartbeatInterval * 2 {
            worker.mayHaveBeenGivenUp = true
        }
    }

    /// A worker stops gracefully: DRAINING, what it runs finished (or abandoned), DISCONNECT.
    private func workerLeaves() {
        let candidates = upWorkers.filter { !$0.needsRegistration }
        guard !candidates.isEmpty else { return }
        let worker = random.pick(candidates)
        let finishesFirst = random.chance(0.6)
        note("worker-leave \(worker.name) \(finishesFirst ? "after finishing" : "abandoning") \(worker.held.map(\.request.requestID))")
        if finishesFirst {
            core.received(.draining, from: worker.id, now: now)
            var outcomes: [WireOutcome] = []
            while let index = worker.runnable.first { outcomes.append(worker.finish(at: index)) }
            if !outcomes.isEmpty { send(outcomes, from: worker) }
        }
        core.received(.disconnect, from: worker.id, now: now)
        worker.state = .left
        worker.held = []
    }

    // MARK: Time

    /// Moves the clock on: every up worker speaks first (READY if it must register, else a
    /// heartbeat), then the coordinator's timer runs.
    func advance(by step: Duration) throws {
        for worker in upWorkers {
            let timedOut = worker.timeOut(now: now)
            if !timedOut.isEmpty {
                note("worker-timeout \(worker.name) \(timedOut.map(\.requestID))")
                send(timedOut, from: worker)
                try commit()
            }
            if worker.needsRegistration {
                register(worker)
            } else if now - worker.lastHeartbeat >= .milliseconds(500) {
                worker.lastHeartbeat = now
                worker.lastSpoke = now
                core.received(.heartbeat, from: worker.id, now: now)
            }
            try commit()
        }
        now += step
        wallNow += step.seconds
        note("time +\(step)")
        core.tick(now: now)
    }

    // MARK: Settling

    /// Faults stop; the workers finish what they hold, clients resend what is unanswered, and
    /// time passes until every request has its outcome. Then everything is acknowledged and
    /// the coordinator must let go of what it kept.
    func settle() throws {
        note("settle")
        for worker in workers where worker.state == .paused { resumeWorker(worker) }
        if upWorkers.isEmpty { startWorker() }
        try commit()
        var rounds = 0
        while clients.contains(where: { !$0.unanswered.isEmpty }) {
            rounds += 1
            guard rounds <= 600 else {
                let left = clients.flatMap(\.unanswered).map(\.requestID)
                throw violation("after 180 s of settling, \(left.count) requests have no outcome: \(left.prefix(10))")
            }
            for worker in upWorkers where !worker.needsRegistration {
                var outcomes: [WireOutcome] = []
                while let index = worker.runnable.first { outcomes.append(worker.finish(at: index)) }
                if !outcomes.isEmpty {
                    send(outcomes, from: worker)
                    try commit()
                }
            }
            if rounds % 10 == 0 {
                for client in clients {
                    core.received(.ping, from: client.address, now: now)
                    try commit()
                    resendUnanswered(of: client)
                    try commit()
                }
            }
            try advance(by: .milliseconds(300))
            try commit()
        }
        for client in clients {
            let ids = client.takeAcknowledgements(limit: .max)
            if !ids.isEmpty {
                core.received(.acknowledge(requestIDs: ids), from: client.address, now: now)
                try commit()
            }
        }
        for _ in 0..<60 {
            try advance(by: .seconds(1))
            try commit()
        }
        try checkSettled()
    }

    /// Nothing queued, running or owed; kept outcomes within their bound; sessions, clients
    /// and stacks forgotten; every credit of every registered worker free again.
    private func checkSettled() throws {
        let statistics = core.statistics
        let left = [
            ("queued", statistics.queued), ("running", statistics.running), ("owed outcomes", statistics.outcomesOwed),
            ("clients", statistics.clients), ("session pins", statistics.sessions), ("tracked sessions", statistics.trackedSessions),
        ].filter { $0.1 != 0 }
        guard left.isEmpty else { throw violation("settled, the coordinator still holds \(left)") }
        guard statistics.outcomesKept <= configuration.completedRetention else {
            throw violation("it keeps \(statistics.outcomesKept) outcomes, more than its bound \(configuration.completedRetention)")
        }
        let registered = upWorkers.filter { $0.registeredIncarnation == incarnation }
        let credits = registered.reduce(0) { $0 + Int($1.credits) }
        guard statistics.workers == registered.count, core.creditAccount.pool == credits else {
            throw violation("settled with \(statistics.workers) workers and \(core.creditAccount.pool) free credits; \(registered.count) up with \(credits)")
        }
        for client in clients {
            for sent in client.sent {
                guard let outcome = sent.outcomes.first else { continue }
                if outcome.action != sent.request.action || outcome.session != sent.request.session {
                    throw violation("\(sent.request.requestID)'s outcome names \(outcome.action)@\(outcome.session)")
                }
                if sent.request.action == Self.typo, outcome.isSuccess {
                    throw violation("\(sent.request.requestID), for an action nobody serves, succeeded")
                }
            }
        }
    }
}
