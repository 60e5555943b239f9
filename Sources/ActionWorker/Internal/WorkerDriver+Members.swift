import ActionTransport
import ActionWire
import ZeroMQ

// Following a coordinator group's leader: moving to the next member when one says NOT-LEADER,
// refuses or drops the connection, or falls silent, and watching the connection for that.
extension WorkerDriver {
    /// A group member that does not lead answered, naming the leader's endpoint when it knows
    /// it: the worker moves there (at once, see `MemberEndpoints.waitBeforeMove`), or to the next.
    func notLeaderReceived(naming leader: String?) {
        statistics.notLeaderAnswers += 1
        if members.leaderNamed(leader), let move = pendingMove {
            // A paced move to the next member gives way to one to the leader.
            runtime.cancel(move)
            pendingMove = nil
        }
        moveToNextMemberSoon()
    }

    /// The member's WELCOME named an epoch older than one seen: a leader deposed since (a pause
    /// past its lease, a cut from etcd) that has not noticed yet. Nothing more it sends is run;
    /// the worker moves on and registers there.
    func refuseDeposedMember(epoch: UInt64) {
        statistics.deposedMembersRefused += 1
        logger.warning("a coordinator group member answered with an older epoch (deposed); moving on", metadata: [
            "group.epoch": "\(epoch)", "group.epochSeen": "\(members.highestEpoch)",
        ])
        moveToNextMemberSoon()
    }

    /// Moves to the next member now, or once `MemberEndpoints.movePause` has passed since the last move.
    func moveToNextMemberSoon() {
        guard pendingMove == nil else { return }
        let connection = connections
        pendingMove = runtime.schedule(after: members.waitBeforeMove(lastMovedAt: movedAt, now: .now)) { [unowned self] in
            pendingMove = nil
            // Moved meanwhile (a dropped connection, silence): that move was the answer.
            let wasRegistered = link.isRegistered
            guard connection == connections, let registration = link.memberLost(at: .now) else { return }
            reconnect(then: registration, fellSilent: false, lostLeader: wasRegistered)
        }
    }

    /// Starts a fresh connection, to the next member in a group, and registers again: the
    /// coordinator fell silent, or (not `fellSilent`) the member does not lead or dropped us.
    /// Going round the members while none leads (`lostLeader` false) is logged at debug level:
    /// ten moves a second during an election.
    func reconnect(then registration: WorkerLink.Registration, fellSilent: Bool = true, lostLeader: Bool = true) {
        let endpoint = members.advance()
        movedAt = .now
        if fellSilent {
            logger.warning("coordinator silent or gone; reconnecting", metadata: ["endpoint": "\(endpoint)"])
        } else {
            logger.log(level: lostLeader ? .info : .debug, "trying the next coordinator group member", metadata: ["endpoint": "\(endpoint)"])
        }
        statistics.reconnects += 1
        runtime.unregister(socket)
        socket.stopMonitoring()
        // Queued results get a moment to leave a coordinator that may only have stalled, and
        // then they count. Not to a member that does not lead: what it is sent once it binds
        // (a READY, say) would be answered to a socket that is gone.
        try? socket.setOption(.linger, fellSilent ? 1000 : 0)
        socket.close()
        do {
            socket = try Self.connect(runtime: runtime, configuration: configuration, endpoint: endpoint, routingID: routingID)
        } catch {
            logger.error("reconnect failed", metadata: ["zmq.error": "\(error)"])
            runtime.stop()
            return
        }
        runtime.register(socket) { [unowned self] _ in read() }
        do {
            try watchConnection()
        } catch {
            logger.error("cannot watch the connection to the coordinator group member", metadata: ["zmq.error": "\(error)"])
        }
        register(registration)
    }

    /// In a group, monitors the socket for a dropped connection, replacing the last monitor.
    func watchConnection() throws {
        guard members.isGroup else { return }
        if let old = connectionEvents {
            runtime.unregister(old)
            old.close()
        }
        connections += 1
        let events = try runtime.monitorConnections(
            of: socket, name: "actionbus-worker-\(String(decoding: routingID, as: UTF8.self))-\(connections)", events: [.disconnected, .connectRetried]
        )
        connectionEvents = events
        runtime.register(events) { [unowned self] _ in readConnectionEvents() }
    }

    func readConnectionEvents() {
        guard let connectionEvents, !connectionEvents.receiveMonitorEvents(using: &incoming).isDisjoint(with: [.disconnected, .connectRetried])
        else { return }
        moveToNextMemberSoon()
    }
}
