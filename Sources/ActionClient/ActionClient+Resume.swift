import ActionWire

/// Subscriptions that resume from a position of the outcome stream.
extension ActionClient {
    /// Subscribes to the outcome stream from `position` on, filtered as
    /// ``outcomes(feature:action:session:confirmationTimeout:)`` is: first the outcomes the
    /// coordinator kept from that position (REPLAY), then the live stream, each outcome once,
    /// in position order. Whatever the live stream misses (a slow reader's dropped outcomes, a
    /// coordinator restart, a group's failover) is asked for again from the history, so the
    /// stream has no gap inside the coordinator's retention window.
    ///
    /// Start at 1 (or 0) for everything kept, or at the last ``StreamedOutcome/position`` seen plus 1.
    /// Each element's `sequence` is its position and `missed` is 0.
    ///
    /// - Throws: ``ActionBusError`` `outsideRetention` when `position` is older than the oldest
    ///   the coordinator keeps (its message names that oldest), `positionAhead` when it is
    ///   beyond the stream's head (a position from another history: a coordinator without a
    ///   journal restarted, or a new data directory), `notSubscribed` or `unreachable` when no
    ///   coordinator answered. The stream ends with the same errors if they arise later (a
    ///   reader stalled past the window).
    public func outcomes(
        from position: UInt64, feature: String? = nil, action: String? = nil, session: String? = nil,
        confirmationTimeout: Duration = .seconds(10)
    ) async throws -> AsyncThrowingStream<StreamedOutcome, any Error> {
        // Positions count from 1: 0 asks for everything kept, as 1 does.
        let position = max(position, 1)
        let prefix = OutcomeTopic.prefix(feature: feature, action: action, session: session)
        let live: AsyncStream<ResumableStreamEvent> = try await subscribe(
            prefix: prefix, scope: OutcomeTopic.scope(feature: feature, action: action, session: session),
            confirmationTimeout: confirmationTimeout, sink: SubscriptionSink.resumable
        )
        // Asked once now, so that a position outside the history fails the call itself.
        try Self.check(try await replayChunk(prefix: prefix, from: position, patience: confirmationTimeout), from: position)
        let (stream, continuation) = AsyncThrowingStream<StreamedOutcome, any Error>.makeStream()
        let task = Task {
            var resumption = Resumption(prefix: prefix, next: position)
            do {
                try await resumption.follow(live, client: self, into: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// One REPLAY, asked again on `unreachable` (a failover moves the client to another
    /// member) until `patience` runs out.
    func replayChunk(prefix: [UInt8], from position: UInt64, patience: Duration) async throws -> ReplayChunk {
        let giveUp = ContinuousClock.now + patience
        while true {
            do {
                let bytes = try await query(timeout: Self.replayQueryTimeout) { .replay(queryID: $0, prefix: prefix, from: position) }
                do {
                    return try ReplayChunk(bytes: bytes)
                } catch {
                    throw ActionBusError(code: "malformedReply", message: "the coordinator's REPLAY-REPLY does not decode: \(error.message)")
                }
            } catch let error as ActionBusError where error.code == "unreachable" && ContinuousClock.now < giveUp {
                try await Task.sleep(for: Self.replayRetryPause)
            }
        }
    }

    static let replayQueryTimeout: Duration = .seconds(2)
    static let replayRetryPause: Duration = .milliseconds(200)

    /// Throws when `from` is outside what `chunk`'s coordinator keeps.
    static func check(_ chunk: ReplayChunk, from position: UInt64) throws {
        if position < chunk.oldest {
            throw ActionBusError(
                code: "outsideRetention",
                message: "position \(position) is older than the coordinator keeps: its oldest is \(chunk.oldest) "
                    + "(raise --stream-history or --stream-history-age to keep more), and its last is \(chunk.head)"
            )
        }
        if position > chunk.head + 1 {
            throw ActionBusError(
                code: "positionAhead",
                message: "position \(position) is beyond the coordinator's stream, whose last position is \(chunk.head): "
                    + "it comes from another history (a coordinator without a journal restarted, or started on a new data directory)"
            )
        }
    }
}

/// Where a resuming subscription stands: the next position it owes its reader, and the
/// coordinator instance its live subscription hears.
private struct Resumption {
    let prefix: [UInt8]
    var next: UInt64
    var liveInstance: String?

    /// Replays up to the head, then passes live outcomes on; catches up again whenever the
    /// live stream may have missed something.
    mutating func follow(
        _ live: AsyncStream<ResumableStreamEvent>, client: ActionClient,
        into continuation: AsyncThrowingStream<StreamedOutcome, any Error>.Continuation
    ) async throws {
        var caughtUp = false
        for await event in live {
            switch event {
            case .confirmed(let instance):
                liveInstance = instance
                caughtUp = false
            case .outcomes(let batch):
                if batch.contains(where: { $0.missed > 0 }) { caughtUp = false }
                if !caughtUp {
                    try await catchUp(client: client, into: continuation)
                    caughtUp = true
                }
                for var outcome in batch where outcome.position >= next {
                    next = outcome.position + 1
                    outcome.sequence = outcome.position
                    outcome.missed = 0
                    // What a restart may have cost was replayed.
                    outcome.coordinatorRestarted = false
                    continuation.yield(outcome)
                }
            }
            // Confirmed and quiet: the history is asked at once, not at the next outcome.
            if !caughtUp, liveInstance != nil {
                try await catchUp(client: client, into: continuation)
                caughtUp = true
            }
        }
    }

    /// Yields what the history holds from `next` to its head, from the instance the live
    /// subscription hears (another, such as a deposed leader not yet stopped, may be behind).
    private mutating func catchUp(
        client: ActionClient, into continuation: AsyncThrowingStream<StreamedOutcome, any Error>.Continuation
    ) async throws {
        while !Task.isCancelled {
            let chunk = try await client.replayChunk(prefix: prefix, from: next, patience: .seconds(3600 * 24 * 365))
            if let liveInstance, chunk.instance != liveInstance {
                try await Task.sleep(for: ActionClient.replayRetryPause)
                continue
            }
            try ActionClient.check(chunk, from: next)
            for positioned in chunk.outcomes where positioned.position >= next {
                var outcome = StreamedOutcome(outcome: positioned.outcome, sequence: positioned.position, missed: 0)
                outcome.position = positioned.position
                continuation.yield(outcome)
                next = positioned.position + 1
            }
            next = max(next, chunk.next)
            if chunk.caughtUp { return }
        }
    }
}
