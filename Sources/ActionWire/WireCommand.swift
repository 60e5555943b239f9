/// Every ActionBus command, as the last byte of the header frame.
package enum WireCommand: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    // Client -> coordinator.
    /// Perform an action.
    case perform = 0x01
    /// Cancel a request sent earlier.
    case cancel = 0x02
    /// Ask for the open action stacks.
    case stacks = 0x03
    /// Liveness probe.
    case ping = 0x04
    /// Ask for the coordinator's counters.
    case stats = 0x05
    /// Acknowledge outcomes received.
    case acknowledge = 0x06
    /// End a session: close its action stacks on the coordinator and on its worker.
    case endSession = 0x07
    /// Switch features on or off across the fleet (or only ask how they are switched).
    case features = 0x08
    /// Ask for the registered workers.
    case workers = 0x09
    /// Ask what waits and what runs, per action and per session.
    case queues = 0x0A
    /// Ask for outcomes the stream published, from a position on.
    case replay = 0x0B

    // Coordinator -> client.
    /// The request is recorded and will be performed.
    case accepted = 0x11
    /// The request's outcome.
    case outcome = 0x12
    /// The answer to ``stacks``.
    case stacksReply = 0x13
    /// The answer to ``ping``.
    case pong = 0x14
    /// A message could not be understood.
    case error = 0x15
    /// The answer to ``stats``.
    case statsReply = 0x16
    /// The answer to ``features``.
    case featuresReply = 0x17
    /// The answer to ``workers``.
    case workersReply = 0x18
    /// The answer to ``queues``.
    case queuesReply = 0x19
    /// The answer to ``replay``.
    case replayReply = 0x1A
    /// A group member that does not lead answers every message with this: try the next member.
    case notLeader = 0x1B

    // Worker -> coordinator.
    /// Register, or re-register, the actions and credits a worker offers.
    case ready = 0x21
    /// An action's outcome, returning one credit.
    case result = 0x22
    /// Worker heartbeat.
    case workerHeartbeat = 0x23
    /// The worker leaves.
    case workerDisconnect = 0x24
    /// The worker is shutting down: send it nothing new; it finishes what it holds, then leaves.
    case workerDraining = 0x25
    /// Requests that started running (only while the coordinator asks for them).
    case began = 0x26
    /// What the worker serves, described: features, actions, their schemas.
    case catalog = 0x27
    /// Outcomes the worker reported lately, sent again after it registers: they answer only
    /// requests the coordinator took back from its journal. No credit returns.
    case resent = 0x28

    // Coordinator -> worker.
    /// Run an action.
    case request = 0x31
    /// Coordinator heartbeat.
    case coordinatorHeartbeat = 0x32
    /// The coordinator no longer knows this worker: register again.
    case coordinatorDisconnect = 0x33
    /// Stop a request (its client cancelled it).
    case cancelRequest = 0x34
    /// The coordinator's answer to READY: the limits and heartbeat the worker must keep to.
    case welcome = 0x35
    /// A client ended a session the worker hosts.
    case workerEndSession = 0x36
    /// The fleet-wide feature switches, every one of them.
    case switches = 0x37
    /// Which optional reports the coordinator wants from the worker (BEGAN).
    case reporting = 0x38
    /// A group member that does not lead answers READY and every other worker message with
    /// this: try the next member.
    case workerNotLeader = 0x39

    // Outcome stream.
    /// An outcome, with its sequence numbers.
    case event = 0x41
    /// A subscription reached the coordinator.
    case subscribed = 0x42
    /// Requests that started running on a worker (opt-in topics).
    case beganEvent = 0x43

    package var description: String { "\(self.name)(0x\(String(rawValue, radix: 16)))" }

    private var name: String {
        switch self {
        case .perform: "PERFORM"
        case .cancel: "CANCEL"
        case .stacks: "STACKS"
        case .ping: "PING"
        case .stats: "STATS"
        case .acknowledge: "ACK"
        case .endSession, .workerEndSession: "END-SESSION"
        case .features: "FEATURES"
        case .featuresReply: "FEATURES-REPLY"
        case .workers: "WORKERS"
        case .workersReply: "WORKERS-REPLY"
        case .queues: "QUEUES"
        case .queuesReply: "QUEUES-REPLY"
        case .replay: "REPLAY"
        case .replayReply: "REPLAY-REPLY"
        case .switches: "SWITCHES"
        case .began, .beganEvent: "BEGAN"
        case .catalog: "CATALOG"
        case .resent: "RESENT"
        case .reporting: "REPORTING"
        case .accepted: "ACCEPTED"
        case .outcome: "OUTCOME"
        case .stacksReply: "STACKS-REPLY"
        case .pong: "PONG"
        case .notLeader, .workerNotLeader: "NOT-LEADER"
        case .error: "ERROR"
        case .statsReply: "STATS-REPLY"
        case .ready: "READY"
        case .result: "RESULT"
        case .workerHeartbeat: "HEARTBEAT"
        case .workerDisconnect: "DISCONNECT"
        case .workerDraining: "DRAINING"
        case .request: "REQUEST"
        case .coordinatorHeartbeat: "HEARTBEAT"
        case .coordinatorDisconnect: "DISCONNECT"
        case .cancelRequest: "CANCEL"
        case .welcome: "WELCOME"
        case .event: "EVENT"
        case .subscribed: "SUBSCRIBED"
        }
    }
}
