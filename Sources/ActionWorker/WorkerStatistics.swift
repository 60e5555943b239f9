/// Counters a worker keeps.
public struct WorkerStatistics: Sendable, Hashable, Codable {
    /// Whether the coordinator has registered it now (WELCOME since its last READY): what a
    /// readiness probe asks.
    public var registered = false
    /// Requests received.
    public var received = 0
    /// Outcomes sent back.
    public var completed = 0
    /// Outputs over the coordinator's message limit, answered `resultTooLarge` instead.
    public var resultsTooLarge = 0
    /// Requests received while a request with the same id was still running here (ignored).
    public var duplicates = 0
    /// Running requests the coordinator cancelled (their clients cancelled them).
    public var cancelled = 0
    /// Performs its actions ran inside others (nested), reported to the coordinator's stacks.
    public var nestedPerforms = 0
    /// Sessions a client ended (END-SESSION).
    public var sessionsEnded = 0
    /// Messages from the coordinator that failed to decode.
    public var malformedMessages = 0
    /// Times the worker reconnected after the coordinator fell silent.
    public var reconnects = 0
    /// Answers from coordinator group members that do not lead (NOT-LEADER): each moves the
    /// worker on to the next member.
    public var notLeaderAnswers = 0
    /// Outcomes sent again (RESENT) after a WELCOME, in case the coordinator before lost them.
    public var resultsResent = 0
    /// RESULT messages kept now to be sent again after the next WELCOME: those sent within the
    /// resend window that the coordinator has not yet said are durable.
    public var resultsKept = 0
    /// Coordinator group members refused for welcoming it with an epoch older than one it had
    /// seen (deposed leaders that had not noticed yet).
    public var deposedMembersRefused = 0
    /// Registrations sent (first READY included).
    public var registrations = 0
    /// Requests running now.
    public var running = 0
    /// Sessions hosted now.
    public var sessions = 0

    /// All zero.
    public init() {}
}
