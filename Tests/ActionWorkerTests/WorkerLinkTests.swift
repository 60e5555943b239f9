import ActionWire
import ActionWorker
import Testing

/// The worker's link to its coordinator as a state machine: events in, actions out, with
/// synthetic instants (nothing here waits, and no socket or coordinator is involved).
@Suite("WorkerLink")
struct WorkerLinkTests {
    let start = ContinuousClock.now
    let ready = WorkerLink.Registration(followedByDraining: false)
    let readyThenDraining = WorkerLink.Registration(followedByDraining: true)

    /// A link configured as a worker is by default: 1 s heartbeats, liveness 3, 1 MiB messages.
    func makeStartedLink() -> WorkerLink {
        var link = WorkerLink(heartbeatInterval: .seconds(1), liveness: 3, maxMessageBytes: 1 << 20, now: start)
        _ = link.start(at: start)
        return link
    }

    func at(_ milliseconds: Int64) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    static func terms(maxBytes: UInt32 = 1 << 20, heartbeatMilliseconds: UInt32 = 1000, liveness: UInt32 = 3) -> WorkerTerms {
        WorkerTerms(maxMessageBytes: maxBytes, heartbeatMilliseconds: heartbeatMilliseconds, heartbeatLiveness: liveness)
    }

    // MARK: Registering

    @Test func aStartingWorkerRegistersAtOnceAndIsNotRegisteredUntilWelcomed() {
        var link = WorkerLink(heartbeatInterval: .seconds(1), liveness: 3, maxMessageBytes: 1 << 20, now: start)
        let registration = link.start(at: start)
        #expect(registration == ready)
        #expect(link.state == .registering)
        #expect(!link.isRegistered)
        _ = link.welcomeReceived(Self.terms())
        #expect(link.state == .registered)
        #expect(link.isRegistered)
    }

    @Test func theCoordinatorsTermsHoldWhateverTheWorkerWasConfiguredWith() {
        var link = makeStartedLink()
        let welcome = link.welcomeReceived(Self.terms(maxBytes: 4096, heartbeatMilliseconds: 200, liveness: 5))
        #expect(welcome == WorkerLink.WelcomeAction(describeCatalogWithin: 4096, heartbeatEvery: .milliseconds(200)))
        #expect(link.terms == WorkerLink.Terms(heartbeatInterval: .milliseconds(200), liveness: 5, maxResultBytes: 4096))
    }

    @Test func theCoordinatorsLimitLowersTheResultsLimitButNeverRaisesIt() {
        var link = makeStartedLink()
        let welcome = link.welcomeReceived(Self.terms(maxBytes: 8 << 20))
        #expect(welcome.describeCatalogWithin == 1 << 20)
        #expect(link.terms.maxResultBytes == 1 << 20)
    }

    @Test func aWelcomeWithTheSameIntervalLeavesTheHeartbeatTimerAlone() {
        var link = makeStartedLink()
        let welcome = link.welcomeReceived(Self.terms(liveness: 4))
        #expect(welcome.heartbeatEvery == nil)
        #expect(link.terms.liveness == 4)
    }

    @Test func disconnectFromTheCoordinatorMakesItRegisterAgain() {
        var link = makeStartedLink()
        _ = link.welcomeReceived(Self.terms())
        let registration = link.disconnectReceived()
        #expect(registration == ready)
        #expect(link.state == .registering)
        #expect(!link.isRegistered)
    }

    // MARK: Heartbeats and silence

    @Test func itHeartbeatsWhileTheCoordinatorSpeaksAndReconnectsOnlyPastIntervalTimesLiveness() {
        var link = makeStartedLink()
        var actions = link.heartbeatTimerFired(atEach: [at(1000)])
        link.heard(at: at(2500))
        // At 5.5 s it has been silent for exactly interval × liveness: not yet.
        actions += link.heartbeatTimerFired(atEach: [at(5500), at(5501)])
        #expect(actions == [.sendHeartbeat, .sendHeartbeat, .reconnect(ready)])
        #expect(link.state == .registering)
        #expect(!link.isRegistered)
    }

    @Test func aNewConnectionGetsAFullLivenessPeriodToBeAnswered() {
        var link = makeStartedLink()
        let actions = link.heartbeatTimerFired(atEach: [at(3001), at(4001), at(6001), at(6002)])
        #expect(actions == [.reconnect(ready), .sendHeartbeat, .sendHeartbeat, .reconnect(ready)])
    }

    @Test func silenceIsJudgedByTheCoordinatorsTermsWhichOutliveAReconnect() {
        var link = makeStartedLink()
        _ = link.welcomeReceived(Self.terms(maxBytes: 4096, heartbeatMilliseconds: 200, liveness: 3))
        link.heard(at: at(100))
        let actions = link.heartbeatTimerFired(atEach: [at(700), at(701)])
        #expect(actions == [.sendHeartbeat, .reconnect(ready)])
        // Until the next WELCOME, the last coordinator's terms still hold.
        #expect(link.terms == WorkerLink.Terms(heartbeatInterval: .milliseconds(200), liveness: 3, maxResultBytes: 4096))
    }

    @Test func anyMessageCountsAsASignOfLife() {
        var link = makeStartedLink()
        for milliseconds in stride(from: Int64(1000), through: 60_000, by: 1000) {
            link.heard(at: at(milliseconds - 10))
            let actions = link.heartbeatTimerFired(atEach: [at(milliseconds)])
            #expect(actions == [.sendHeartbeat])
        }
    }

    // MARK: Draining and leaving

    @Test func aDrainingWorkerFollowsEveryLaterReadyWithDraining() {
        var link = makeStartedLink()
        _ = link.welcomeReceived(Self.terms())
        _ = link.drain(at: at(100), grace: .seconds(30))
        #expect(link.isDraining)
        // A coordinator that forgot it (restarted) asks it to register again...
        let registration = link.disconnectReceived()
        #expect(registration == readyThenDraining)
        // ...and so does a silence long enough to reconnect.
        let actions = link.heartbeatTimerFired(atEach: [at(5000)])
        #expect(actions == [.reconnect(readyThenDraining)])
    }

    @Test func aDrainEndsWhenItsRequestsFinishOrItsGraceEnds() {
        var link = makeStartedLink()
        let deadline = link.drain(at: at(0), grace: .seconds(30))
        #expect(deadline == at(30_000))
        #expect(WorkerLink.drainCheckInterval == .milliseconds(10))
        #expect(link.drainProgress(at: at(10), deadline: deadline, running: 2) == .checkAgain(after: .milliseconds(10)))
        #expect(link.drainProgress(at: at(20), deadline: deadline, running: 0) == .leave(unfinished: 0))
        #expect(link.drainProgress(at: at(29_999), deadline: deadline, running: 1) == .checkAgain(after: .milliseconds(10)))
        #expect(link.drainProgress(at: at(30_000), deadline: deadline, running: 1) == .leave(unfinished: 1))
    }

    @Test func aStoppedWorkerSendsNothingMore() {
        var link = makeStartedLink()
        _ = link.welcomeReceived(Self.terms())
        link.stop()
        #expect(link.state == .left)
        #expect(!link.isRegistered)
        let actions = link.heartbeatTimerFired(atEach: [at(1000), at(60_000)])
        #expect(actions == [WorkerLink.HeartbeatAction.none, .none])
    }
}

extension WorkerLink {
    /// What the heartbeat timer asks at each instant in turn (`#expect` cannot call a mutating
    /// method itself).
    fileprivate mutating func heartbeatTimerFired(atEach instants: [ContinuousClock.Instant]) -> [HeartbeatAction] {
        var actions: [HeartbeatAction] = []
        for instant in instants { actions.append(heartbeatTimerFired(at: instant)) }
        return actions
    }
}
