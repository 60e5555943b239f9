import ActionClient
import Testing

/// The client's watch on its coordinator as a state machine: events in, actions out, with
/// synthetic instants (nothing here waits, and no socket or coordinator is involved).
@Suite("CoordinatorWatch")
struct CoordinatorWatchTests {
    typealias Sweep = CoordinatorWatch.SweepAction

    let start = ContinuousClock.now

    /// A watch configured as a client is by default: 1 s heartbeats, liveness 3, 3 s answer grace.
    func makeWatch() -> CoordinatorWatch {
        CoordinatorWatch(heartbeatInterval: .seconds(1), liveness: 3, answerGrace: .seconds(3), now: start)
    }

    /// A watch that has waited since `start` and learnt the coordinator's instance, `a`.
    func makeWaitingWatch() -> CoordinatorWatch {
        var watch = makeWatch()
        _ = watch.startedWaiting(at: start)
        _ = watch.pongReceived(instance: "a")
        return watch
    }

    func at(_ milliseconds: Int64) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    // MARK: Pings

    @Test func theFirstWaitsPingToLearnTheInstanceAndLaterOnesAtMostOncePerInterval() {
        var watch = makeWatch()
        // Until a PONG names the instance, every wait asks.
        var pings = watch.startedWaiting(atEach: [at(0), at(10)])
        _ = watch.pongReceived(instance: "a")
        pings += watch.startedWaiting(atEach: [at(500), at(1010), at(2009)])
        #expect(pings == [true, true, false, true, false])
    }

    @Test func aCoordinatorThatAnswersIsNotPinged() {
        var watch = makeWaitingWatch()
        for milliseconds in stride(from: Int64(50), through: 10_000, by: 50) {
            _ = watch.heard(at: at(milliseconds - 25))
            let sweeps = watch.sweep(atEach: [at(milliseconds)])
            #expect(sweeps == [Sweep(sendPing: false)])
        }
    }

    @Test func aQuietCoordinatorIsPingedOncePerInterval() {
        var watch = makeWaitingWatch()
        _ = watch.heard(at: at(100))
        let sweeps = watch.sweep(atEach: [at(1050), at(1100), at(1150), at(2050), at(2100)])
        #expect(sweeps.map(\.sendPing) == [false, true, false, false, true])
    }

    @Test func silenceCountsOnlyWhileTheClientWaits() {
        var watch = makeWatch()
        var sweeps = watch.sweep(atEach: [at(60_000)], waiting: false)
        #expect(!watch.holdsNewRequests)
        // Waiting starts the count afresh: an idle minute is not a silent coordinator.
        _ = watch.startedWaiting(at: at(60_000))
        sweeps += watch.sweep(atEach: [at(60_050)])
        #expect(sweeps == [Sweep(sendPing: false), Sweep(sendPing: false)])
        #expect(!watch.holdsNewRequests)
    }

    // MARK: Silence

    @Test func pastIntervalTimesLivenessNewRequestsWaitUntilTheCoordinatorAnswers() {
        var watch = makeWaitingWatch()
        var sweeps = watch.sweep(atEach: [at(2999)])
        #expect(!watch.holdsNewRequests)
        sweeps += watch.sweep(atEach: [at(3000), at(3050), at(4000)])
        #expect(watch.holdsNewRequests)
        #expect(sweeps == [
            Sweep(sendPing: true),
            Sweep(sendPing: false, fellSilentAfter: .seconds(3)),
            // Said once per silence; PINGs go on every interval.
            Sweep(sendPing: false),
            Sweep(sendPing: true),
        ])
        let resumes = [watch.heard(at: at(4100)), watch.heard(at: at(4200))]
        #expect(resumes == [true, false])
        #expect(!watch.holdsNewRequests)
    }

    @Test func aStalledCoordinatorThatAnswersAsTheSameInstanceIsSentNothingAgain() {
        var watch = makeWaitingWatch()
        _ = watch.sweep(atEach: [at(5000)])
        #expect(watch.holdsNewRequests)
        let pong = watch.pongReceived(instance: "a")
        #expect(pong == .none)
        let resumes = watch.heard(at: at(5100))
        #expect(resumes)
    }

    @Test func aCoordinatorThatFellSilentSaysHowLongAgoItWasLastHeard() {
        var watch = makeWaitingWatch()
        _ = watch.sweep(atEach: [at(2999)])
        #expect(watch.silence(at: at(2999)) == nil, "not silent before heartbeat × liveness")
        _ = watch.sweep(atEach: [at(3000)])
        #expect(watch.silence(at: at(4500)) == .milliseconds(4500))
        _ = watch.heard(at: at(4600))
        #expect(watch.silence(at: at(4700)) == nil, "answering again")
    }

    @Test func aCallLeftByACoordinatorThatStoppedAnsweringFailsUnreachableSayingSo() {
        let accepted = ActionBusError.stoppedAnswering("r1", accepted: true, lastHeard: .milliseconds(4250), after: .seconds(5))
        #expect(accepted.code == "unreachable")
        #expect(accepted.message.contains("accepted the request, then stopped answering (last heard 4.2 s ago)"), "\(accepted.message)")
        #expect(!accepted.message.contains("no worker finished"))
        let unconfirmed = ActionBusError.stoppedAnswering("r1", accepted: false, lastHeard: .seconds(12), after: .seconds(5))
        #expect(unconfirmed.code == "unreachable")
        #expect(unconfirmed.message.contains("stopped answering (last heard 12.0 s ago) before it confirmed"), "\(unconfirmed.message)")
    }

    // MARK: Evidence of loss

    @Test func aNewInstanceMeansARestartAndEverythingUnansweredGoesAgain() {
        var watch = makeWatch()
        #expect(watch.instance == nil)
        var pongs = [watch.pongReceived(instance: "a")]
        #expect(watch.instance == "a")
        pongs.append(watch.pongReceived(instance: "b"))
        #expect(watch.instance == "b")
        pongs.append(watch.pongReceived(instance: "b"))
        #expect(pongs == [.none, .resendOutstanding(.restarted(from: "a", to: "b")), .none])
    }

    @Test func aDroppedConnectionResendsOnlyWhatIsOutstanding() {
        let watch = makeWatch()
        #expect(watch.connectionDropped(outstanding: 0) == .none)
        #expect(watch.connectionDropped(outstanding: 20) == .resendOutstanding(.connectionDropped))
    }

    // MARK: Timing

    @Test func aCallsLastChanceComesASixthOfTheGraceBeforeItsDeadline() {
        let watch = makeWatch()
        #expect(watch.lastChance(before: at(33_000)) == at(32_500))
    }

    @Test func theSweepRunsEveryQuarterHeartbeatUpTo50Milliseconds() {
        #expect(CoordinatorWatch.sweepInterval(heartbeatInterval: .seconds(1)) == .milliseconds(50))
        #expect(CoordinatorWatch.sweepInterval(heartbeatInterval: .milliseconds(100)) == .milliseconds(25))
    }
}

extension CoordinatorWatch {
    // `#expect` cannot call a mutating method itself: these feed events in turn and return what
    // each asked for.

    fileprivate mutating func startedWaiting(atEach instants: [ContinuousClock.Instant]) -> [Bool] {
        var pings: [Bool] = []
        for instant in instants { pings.append(startedWaiting(at: instant)) }
        return pings
    }

    fileprivate mutating func sweep(atEach instants: [ContinuousClock.Instant], waiting: Bool = true) -> [SweepAction] {
        var actions: [SweepAction] = []
        for instant in instants { actions.append(sweep(at: instant, waiting: waiting)) }
        return actions
    }
}
