import ActionWire
import ActionWorker
import Testing

/// The worker's link to its coordinator as a state machine: events in, actions out, with
/// synthetic instants (nothing here waits, and no socket or coordinator is involved).
@Suite("WorkerLink")
struct WorkerLinkTests {
    let start = ContinuousClock.now

    /// A link configured as a worker is by default: 1 s heartbeats, liveness 3, 1 MiB messages.
    func makeLink() -> WorkerLink {
        WorkerLink(heartbeatInterval: .seconds(1), liveness: 3, maxMessageBytes: 1 << 20, now: start)
    }

    func at(_ milliseconds: Int64) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    // MARK: Registering

    @Test func aStartingWorkerRegistersAtOnceAndIsNotRegisteredUntilWelcomed() {
        var link = makeLink()
        let registration = link.start(at: start)
        #expect(registration == WorkerLink.Registration(followedByDraining: false))
        #expect(link.state == .registering)
        #expect(!link.isRegistered)
        _ = link.welcomeReceived(WorkerTerms(maxMessageBytes: 1 << 20, heartbeatMilliseconds: 1000, heartbeatLiveness: 3))
        #expect(link.state == .registered)
        #expect(link.isRegistered)
    }

    @Test func theCoordinatorsTermsHoldWhateverTheWorkerWasConfiguredWith() {
        var link = makeLink()
        _ = link.start(at: start)
        let action = link.welcomeReceived(WorkerTerms(maxMessageBytes: 4096, heartbeatMilliseconds: 200, heartbeatLiveness: 5))
        #expect(action == WorkerLink.WelcomeAction(describeCatalogWithin: 4096, heartbeatEvery: .milliseconds(200)))
        #expect(link.terms == WorkerLink.Terms(heartbeatInterval: .milliseconds(200), liveness: 5, maxResultBytes: 4096))
    }

    @Test func theCoordinatorsLimitLowersTheResultsLimitButNeverRaisesIt() {
        var link = makeLink()
        _ = link.start(at: start)
        let action = link.welcomeReceived(WorkerTerms(maxMessageBytes: 8 << 20, heartbeatMilliseconds: 1000, heartbeatLiveness: 3))
        #expect(link.terms.maxResultBytes == 1 << 20)
        #expect(action.describeCatalogWithin == 1 << 20)
    }

    @Test func aWelcomeWithTheSameIntervalLeavesTheHeartbeatTimerAlone() {
        var link = makeLink()
        _ = link.start(at: start)
        let action = link.welcomeReceived(WorkerTerms(maxMessageBytes: 1 << 20, heartbeatMilliseconds: 1000, heartbeatLiveness: 4))
        #expect(action.heartbeatEvery == nil)
        #expect(link.terms.liveness == 4)
    }

    @Test func disconnectFromTheCoordinatorMakesItRegisterAgain() {
        var link = makeLink()
        _ = link.start(at: start)
        _ = link.welcomeReceived(WorkerTerms(maxMessageBytes: 1 << 20, heartbeatMilliseconds: 1000, heartbeatLiveness: 3))
        let registration = link.disconnectReceived()
        #expect(registration == WorkerLink.Registration(followedByDraining: false))
        #expect(link.state == .registering)
        #expect(!link.isRegistered)
    }

    // MARK: Heartbeats and silence

    @Test func itHeartbeatsWhileTheCoordinatorSpeaksAndReconnectsOnlyPastIntervalTimesLiveness() {
        var link = makeLink()
        _ = link.start(at: start)
        let tick = link.heartbeatTimerFired(at: at(1000))
        #expect(tick == .sendHeartbeat)
        link.heard(at: at(2500))
        // Silent for exactly interval × liveness: not yet.
        let tick2 = link.heartbeatTimerFired(at: at(5500))
        #expect(tick2 == .sendHeartbeat)
        let tick3 = link.heartbeatTimerFired(at: at(5501))
        #expect(tick3 == .reconnect(WorkerLink.Registration(followedByDraining: false)))
        #expect(link.state == .registering)
    }

    @Test func aNewConnectionGetsAFullLivenessPeriodToBeAnswered() {
        var link = makeLink()
        _ = link.start(at: start)
        let tick = link.heartbeatTimerFired(at: at(3001))
        #expect(tick == .reconnect(WorkerLink.Registration(followedByDraining: false)))
        let tick2 = link.heartbeatTimerFired(at: at(4001))
        #expect(tick2 == .sendHeartbeat)
        let tick3 = link.heartbeatTimerFired(at: at(6001))
        #expect(tick3 == .sendHeartbeat)
        let tick4 = link.heartbeatTimerFired(at: at(6002))
        #expect(tick4 == .reconnect(WorkerLink.Registration(followedByDraining: false)))
    }

    @Test func silenceIsJudgedByTheCoordinatorsTermsWhichOutliveAReconnect() {
        var link = makeLink()
        _ = link.start(at: start)
        _ = link.welcomeReceived(WorkerTerms(maxMessageBytes: 4096, heartbeatMilliseconds: 200, heartbeatLiveness: 3))
        link.heard(at: at(100))
        let tick = link.heartbeatTimerFired(at: at(700))
        #expect(tick == .sendHeartbeat)
        let tick2 = link.heartbeatTimerFired(at: at(701))
        #expect(tick2 == .reconnect(WorkerLink.Registration(followedByDraining: false)))
        // Until the next WELCOME, the last coordinator's terms still hold.
        #expect(link.terms == WorkerLink.Terms(heartbeatInterval: .milliseconds(200), liveness: 3, maxResultBytes: 4096))
    }

    @Test func anyMessageCountsAsASignOfLife() {
        var link = makeLink()
        _ = link.start(at: start)
        for milliseconds in stride(from: Int64(1000), through: 60_000, by: 1000) {
            link.heard(at: at(milliseconds - 10))
            let tick = link.heartbeatTimerFired(at: at(milliseconds))
            #expect(tick == .sendHeartbeat)
        }
    }

    // MARK: Draining and leaving

    @Test func aDrainingWorkerFollowsEveryLaterReadyWithDraining() {
        var link = makeLink()
        _ = link.start(at: start)
        _ = link.welcomeReceived(WorkerTerms(maxMessageBytes: 1 << 20, heartbeatMilliseconds: 1000, heartbeatLiveness: 3))
        _ = link.drain(at: at(100), grace: .seconds(30))
        #expect(link.isDraining)
        // A coordinator that forgot it (restarted) asks it to register again.
        let registration = link.disconnectReceived()
        #expect(registration == WorkerLink.Registration(followedByDraining: true))
        // So does a reconnect after silence.
        let tick = link.heartbeatTimerFired(at: at(5000))
        #expect(tick == .reconnect(WorkerLink.Registration(followedByDraining: true)))
    }

    @Test func aDrainEndsWhenItsRequestsFinishOrItsGraceEnds() {
        var link = makeLink()
        _ = link.start(at: start)
        let deadline = link.drain(at: at(0), grace: .seconds(30))
        #expect(deadline == at(30_000))
        #expect(link.drainProgress(at: at(10), deadline: deadline, running: 2) == .checkAgain(after: WorkerLink.drainCheckInterval))
        #expect(WorkerLink.drainCheckInterval == .milliseconds(10))
        #expect(link.drainProgress(at: at(20), deadline: deadline, running: 0) == .leave(unfinished: 0))
        #expect(link.drainProgress(at: at(29_999), deadline: deadline, running: 1) == .checkAgain(after: .milliseconds(10)))
        #expect(link.drainProgress(at: at(30_000), deadline: deadline, running: 1) == .leave(unfinished: 1))
    }

    @Test func aStoppedWorkerSendsNothingMore() {
        var link = makeLink()
        _ = link.start(at: start)
        _ = link.welcomeReceived(WorkerTerms(maxMessageBytes: 1 << 20, heartbeatMilliseconds: 1000, heartbeatLiveness: 3))
        link.stop()
        #expect(link.state == .left)
        #expect(!link.isRegistered)
        let tick = link.heartbeatTimerFired(at: at(1000))
        #expect(tick == .none)
        let tick2 = link.heartbeatTimerFired(at: at(60_000))
        #expect(tick2 == .none)
    }
}
