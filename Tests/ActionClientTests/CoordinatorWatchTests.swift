import ActionClient
import Testing

/// The client's watch on its coordinator as a state machine: events in, actions out, with
/// synthetic instants (nothing here waits, and no socket or coordinator is involved).
@Suite("CoordinatorWatch")
struct CoordinatorWatchTests {
    let start = ContinuousClock.now

    /// A watch configured as a client is by default: 1 s heartbeats, liveness 3, 3 s answer grace.
    func makeWatch() -> CoordinatorWatch {
        CoordinatorWatch(heartbeatInterval: .seconds(1), liveness: 3, answerGrace: .seconds(3), now: start)
    }

    func at(_ milliseconds: Int64) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    // MARK: Pings

    @Test func theFirstWaitPingsToLearnTheInstanceAndLaterOnesAtMostOncePerInterval() {
        var watch = makeWatch()
        let pings = watch.startedWaiting(at: at(0))
        #expect(pings)
        // Until a PONG names the instance, every wait asks.
        let pings2 = watch.startedWaiting(at: at(10))
        #expect(pings2)
        let pong = watch.pongReceived(instance: "a")
        #expect(pong == .none)
        let pings3 = watch.startedWaiting(at: at(500))
        #expect(!pings3)
        let pings4 = watch.startedWaiting(at: at(1010))
        #expect(pings4)
        let pings5 = watch.startedWaiting(at: at(2009))
        #expect(!pings5)
    }

    @Test func aCoordinatorThatAnswersIsNotPinged() {
        var watch = makeWatch()
        _ = watch.startedWaiting(at: at(0))
        _ = watch.pongReceived(instance: "a")
        for milliseconds in stride(from: Int64(50), through: 10_000, by: 50) {
            _ = watch.heard(at: at(milliseconds - 25))
            let sweep = watch.sweep(at: at(milliseconds), waiting: true)
            #expect(sweep == CoordinatorWatch.SweepAction(sendPing: false))
        }
    }

    @Test func aQuietCoordinatorIsPingedOncePerInterval() {
        var watch = makeWatch()
        _ = watch.startedWaiting(at: at(0))
        _ = watch.pongReceived(instance: "a")
        _ = watch.heard(at: at(100))
        let sweep = watch.sweep(at: at(1050), waiting: true)
        #expect(!sweep.sendPing)
        let sweep2 = watch.sweep(at: at(1100), waiting: true)
        #expect(sweep2.sendPing)
        let sweep3 = watch.sweep(at: at(1150), waiting: true)
        #expect(!sweep3.sendPing)
        let sweep4 = watch.sweep(at: at(2050), waiting: true)
        #expect(!sweep4.sendPing)
        let sweep5 = watch.sweep(at: at(2100), waiting: true)
        #expect(sweep5.sendPing)
    }

    @Test func silenceCountsOnlyWhileTheClientWaits() {
        var watch = makeWatch()
        let sweep = watch.sweep(at: at(60_000), waiting: false)
        #expect(sweep == CoordinatorWatch.SweepAction(sendPing: false))
        #expect(!watch.holdsNewRequests)
        // Waiting starts the count afresh: an idle minute is not a silent coordinator.
        _ = watch.startedWaiting(at: at(60_000))
        let sweep2 = watch.sweep(at: at(60_050), waiting: true)
        #expect(sweep2 == CoordinatorWatch.SweepAction(sendPing: false))
        #expect(!watch.holdsNewRequests)
    }

    // MARK: Silence

    @Test func pastIntervalTimesLivenessNewRequestsWaitUntilTheCoordinatorAnswers() {
        var watch = makeWatch()
        _ = watch.startedWaiting(at: at(0))
        _ = watch.pongReceived(instance: "a")
        _ = watch.heard(at: at(0))
        let sweep = watch.sweep(at: at(2999), waiting: true)
        #expect(sweep == CoordinatorWatch.SweepAction(sendPing: true))
        #expect(!watch.holdsNewRequests)
        let sweep2 = watch.sweep(at: at(3000), waiting: true)
        #expect(sweep2 == CoordinatorWatch.SweepAction(sendPing: false, fellSilentAfter: .seconds(3)))
        #expect(watch.holdsNewRequests)
        // Said once per silence.
        let sweep3 = watch.sweep(at: at(3050), waiting: true)
        #expect(sweep3.fellSilentAfter == nil)
        let sweep4 = watch.sweep(at: at(4000), waiting: true)
        #expect(sweep4 == CoordinatorWatch.SweepAction(sendPing: true))
        let resumes = watch.heard(at: at(4100))
        #expect(resumes)
        #expect(!watch.holdsNewRequests)
        let resumes2 = watch.heard(at: at(4200))
        #expect(!resumes2)
    }

    @Test func aStalledCoordinatorThatAnswersAsTheSameInstanceIsSentNothingAgain() {
        var watch = makeWatch()
        _ = watch.startedWaiting(at: at(0))
        let pong = watch.pongReceived(instance: "a")
        #expect(pong == .none)
        _ = watch.sweep(at: at(5000), waiting: true)
        #expect(watch.holdsNewRequests)
        let pong2 = watch.pongReceived(instance: "a")
        #expect(pong2 == .none)
        let resumes = watch.heard(at: at(5100))
        #expect(resumes)
    }

    // MARK: Evidence of loss

    @Test func aNewInstanceMeansARestartAndEverythingUnansweredGoesAgain() {
        var watch = makeWatch()
        #expect(watch.instance == nil)
        let pong = watch.pongReceived(instance: "a")
        #expect(pong == .none)
        #expect(watch.instance == "a")
        let pong2 = watch.pongReceived(instance: "b")
        #expect(pong2 == .resendOutstanding(.restarted(from: "a", to: "b")))
        #expect(watch.instance == "b")
        let pong3 = watch.pongReceived(instance: "b")
        #expect(pong3 == .none)
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
