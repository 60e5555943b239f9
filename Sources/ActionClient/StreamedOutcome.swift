import ActionWire

/// One outcome from the outcome stream.
public struct StreamedOutcome: Sendable, Hashable {
    /// The outcome.
    public var outcome: WireOutcome
    /// Its sequence number in the subscription's scope.
    public var sequence: UInt64
    /// How many outcomes in scope were dropped just before this one (0 when none).
    public var missed: UInt64
    /// Whether the coordinator restarted since the previous outcome of this stream: outcomes
    /// finished around the restart may be missing, uncounted (sequences start again at 1).
    public var coordinatorRestarted = false
    /// Its position in the whole stream: one more than the outcome published before it,
    /// across restarts and failovers of a coordinator with a journal. Resume after it with
    /// ``ActionClient/outcomes(from:feature:action:session:confirmationTimeout:)`` at
    /// `position + 1`.
    public var position: UInt64 = 0
}

/// A request that started running on a worker, from the stream's began topics
/// (``ActionClient/began(feature:action:session:confirmationTimeout:)``).
public struct StreamedBegan: Sendable, Hashable {
    /// The request, its action and session, and the worker it runs on.
    public var event: BeganEvent
    /// Whether the coordinator restarted since the previous event of this stream.
    public var coordinatorRestarted = false
}
