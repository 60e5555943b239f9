import ActionTransport
import ZeroMQ

// Following a coordinator group's leader: moving to the next member (at once, or paced when
// one says NOT-LEADER or refuses), where what is outstanding goes again.
extension ClientDriver {
    /// Moves to the next member of a coordinator group: what the old connection held is lost,
    /// so what is outstanding goes again, once the new member answers the PING sent now.
    func moveToNextMember(now: ContinuousClock.Instant) {
        runtime.unregister(socket)
        runtime.unregister(connectionEvents)
        socket.stopMonitoring()
        try? socket.setOption(.linger, 0)
        socket.close()
        connectionEvents.close()
        connections += 1
        let endpoint = members.advance()
        do {
            (socket, connectionEvents) = try Self.connect(
                runtime: runtime, configuration: configuration, clientID: clientID, to: endpoint, watchingRefusals: true, connection: connections
            )
        } catch {
            logger.error("cannot connect to the next coordinator group member; stopping", metadata: ["endpoint": "\(endpoint)", "zmq.error": "\(error)"])
            runtime.stop()
            return
        }
        registerConnection()
        movedAt = now
        watch.restartSilence(at: now)
        let resent = takeBackOutstanding()
        logger.info("trying the next coordinator group member", metadata: ["endpoint": "\(endpoint)", "requests.outstanding": "\(resent)"])
        send(.ping)
        resendQueries()
    }

    /// A member that does not lead answered, naming the leader's endpoint when it knows it:
    /// the client moves there (at once, see `MemberEndpoints.waitBeforeMove`), or to the next.
    func notLeaderReceived(naming leader: String?) {
        if members.leaderNamed(leader), let move = pendingMove {
            // A paced move to the next member gives way to one to the leader.
            runtime.cancel(move)
            pendingMove = nil
        }
        moveToNextMemberSoon()
    }

    /// The member answered PING with an epoch older than one seen: a leader deposed since (a
    /// pause past its lease, a cut from etcd) that has not noticed yet. Nothing more it sends
    /// is taken; the client moves on (what is outstanding goes again there).
    func refuseDeposedMember(epoch: UInt64) {
        logger.warning("a coordinator group member answered with an older epoch (deposed); moving on", metadata: [
            "group.epoch": "\(epoch)", "group.epochSeen": "\(members.highestEpoch)",
        ])
        moveToNextMemberSoon()
    }

    /// Moves to the next member now, or once `MemberEndpoints.movePause` has passed since the last
    /// move; there, what is outstanding goes again. For a member that answered NOT-LEADER (it
    /// kept nothing it was sent) or refused the connection.
    func moveToNextMemberSoon() {
        guard pendingMove == nil else { return }
        let connection = connections
        pendingMove = runtime.schedule(after: members.waitBeforeMove(lastMovedAt: movedAt, now: .now)) { [unowned self] in
            pendingMove = nil
            // Moved meanwhile (a refusal, silence): that move was the answer.
            guard connection == connections else { return }
            moveToNextMember(now: .now)
        }
    }
}
