import ActionCoordinator
import ActionWire

/// A worker process of the simulated bus. It runs what it is sent (a session's requests in the
/// order they came), heartbeats while it is up, and can crash, pause (SIGSTOP) or leave.
final class SimulatedWorker {
    enum State: Equatable {
        /// Running and answering.
        case up
        /// Stopped: its connection holds, it reads and sends nothing.
        case paused
        /// Gone: its connection is closed and what it ran is lost.
        case crashed
        /// Left after a DISCONNECT of its own.
        case left
    }

    /// A request it runs, and in which coordinator incarnation it came.
    struct Held {
        var request: WireRequest
        var incarnation: Int
        /// Its registration's number: a DISCONNECT means the coordinator gave up what it held.
        var epoch: Int
        /// When its own timer answers `timedOut`, as a worker's does at the REQUEST's timeout.
        var deadline: ContinuousClock.Instant
    }

    let id: WorkerID
    let name: String
    let credits: UInt32
    let actions: [String]
    var state: State = .up
    /// What it runs, in the order it came.
    var held: [Held] = []
    /// Results it sent, by request id: a late duplicate sends one again.
    var finished: [(requestID: String, outcome: WireOutcome)] = []
    /// Whether it must send READY (it starts so, and a DISCONNECT asks it again).
    var needsRegistration = true
    /// The coordinator incarnation whose WELCOME it holds; nil until one comes.
    var registeredIncarnation: Int?
    /// Whether a coordinator may have given it up since it registered (it paused past its
    /// heartbeat expiry, or a send to it failed): what it holds may then run elsewhere too.
    var mayHaveBeenGivenUp = false
    /// How many DISCONNECTs it has heard: what it got before the last one no longer counts.
    var epoch = 0
    /// When it last sent a heartbeat.
    var lastHeartbeat: ContinuousClock.Instant
    /// When it last sent anything: the coordinator gives it up after a silence of its expiry.
    var lastSpoke: ContinuousClock.Instant
    private var runs = 0

    init(number: Int, credits: UInt32, actions: [String], now: ContinuousClock.Instant) {
        id = WorkerID([0xB0, UInt8(number & 0xFF), UInt8(number >> 8)])
        name = "w\(number)"
        self.credits = credits
        self.actions = actions
        lastHeartbeat = now
        lastSpoke = now
    }

    var registration: WorkerRegistration { WorkerRegistration(name: name, credits: credits, actions: actions) }

    /// The held requests it may finish now: the first of each session, and any without one.
    var runnable: [Int] {
        var seenSessions: Set<String> = []
        var indices: [Int] = []
        for (index, entry) in held.enumerated() {
            let session = entry.request.session
            if session.isEmpty {
                indices.append(index)
            } else if seenSessions.insert(session).inserted {
                indices.append(index)
            }
        }
        return indices
    }

    /// Answers `timedOut` for what is past its deadline, as its timers do (at once when it
    /// resumes from a pause).
    func timeOut(now: ContinuousClock.Instant) -> [WireOutcome] {
        let expired = held.filter { $0.deadline <= now }
        guard !expired.isEmpty else { return [] }
        held.removeAll { $0.deadline <= now }
        return expired.map { entry in
            let request = entry.request
            let outcome = WireOutcome(
                requestID: request.requestID, action: request.action, session: request.session, worker: name,
                closeActionStack: false, result: .failure(code: "timedOut", message: "the action did not complete within its timeout")
            )
            finished.append((request.requestID, outcome))
            return outcome
        }
    }

    /// Finishes the held request at `index`: a success naming this run, so two runs of one
    /// request give different outcomes.
    func finish(at index: Int) -> WireOutcome {
        let request = held.remove(at: index).request
        runs += 1
        let outcome = WireOutcome(
            requestID: request.requestID, action: request.action, session: request.session, worker: name,
            closeActionStack: false, result: .success(contentType: WireRequest.json, output: Array(#"{"run":"\#(name)-\#(runs)"}"#.utf8))
        )
        finished.append((request.requestID, outcome))
        return outcome
    }
}
