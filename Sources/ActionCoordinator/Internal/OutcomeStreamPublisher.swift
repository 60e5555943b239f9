import ActionTransport
import ActionWire
import Logging
import ZeroMQ

/// The outcome stream's side of the loop: follows the XPUB's subscriptions (confirming each
/// with SUBSCRIBED, telling the core whether anyone wants began events), sends outcomes as
/// runs of events, and hands them to in-process feeds (the dashboard's live tail).
///
/// The request path never waits for a subscriber: a slow one misses events and sees the gap
/// in their sequence numbers. Loop thread only.
final class OutcomeStreamPublisher {
    private static let maxConfirmationsPerSecond = 1_000

    private let outcomes: Socket
    private let logger: Logger
    /// Counts dropped confirmations and overflows, and takes subscriptions; set once it exists.
    @exclusivity(unchecked) var core: CoordinatorCore!
    @exclusivity(unchecked) private var incoming = Multipart()
    @exclusivity(unchecked) private var outgoing = PackedFrames()
    /// Topic prefixes someone subscribes to (XPUB tells each new one, and each one nobody
    /// subscribes to any more).
    @exclusivity(unchecked) private var subscribedTopics: Set<[UInt8]> = []
    @exclusivity(unchecked) private var confirmationWindowStart = ContinuousClock.now
    @exclusivity(unchecked) private var confirmationsInWindow = 0
    /// The run of events being gathered for each kind of topic: action-first, session-first.
    private let eventRuns = [GatheredRecords<OutcomeEvent>(), GatheredRecords<OutcomeEvent>()]
    @exclusivity(unchecked) private var eventRunTopics: [[UInt8]] = [[], []]
    /// In-process readers of the outcome stream (the dashboard's live tail): each gets every
    /// outcome as it is published, dropping its oldest when it falls behind.
    @exclusivity(unchecked) private var outcomeFeeds: [Int: AsyncStream<WireOutcome>.Continuation] = [:]
    @exclusivity(unchecked) private var lastFeedID = 0
    @exclusivity(unchecked) private var lastDropWarning: ContinuousClock.Instant?

    init(outcomes: Socket, logger: Logger) {
        self.outcomes = outcomes
        self.logger = logger
    }

    // MARK: Subscriptions

    /// Reads up to `maxMessages` subscription changes.
    func readSubscriptions(maxMessages: Int) {
        // One SUBSCRIBED per prefix per batch confirms every subscriber of it; a flood of
        // subscriptions (XPUB passes each on, being verbose) must not become a flood of
        // confirmations on the topics of legitimate subscribers.
        var confirm: [[UInt8]] = []
        defer {
            followBeganSubscriptions()
            confirmSubscriptions(confirm)
        }
        for _ in 0..<maxMessages {
            guard outcomes.receiveIfAvailable(into: &incoming) else { return }
            // XPUB delivers 0x01 + prefix for a subscription (every one, being verbose), and
            // 0x00 + prefix when the last subscriber of that prefix leaves.
            guard incoming.count == 1, let kind = incoming[0].first else { continue }
            let topic = Array(incoming[0].dropFirst())
            if kind == 1 {
                subscribedTopics.insert(topic)
                if !confirm.contains(topic) { confirm.append(topic) }
            } else if kind == 0 {
                subscribedTopics.remove(topic)
            }
        }
    }

    /// Tells the core whether anyone subscribes to began events, after the subscriptions read.
    private func followBeganSubscriptions() {
        core.beganEvents(wanted: subscribedTopics.contains(where: OutcomeTopic.matchesBegan))
    }

    /// Publishes SUBSCRIBED for `topics`, at most `maxConfirmationsPerSecond` a second: past
    /// that (a flood of distinct prefixes) confirmations are dropped and counted; a subscriber
    /// that misses one times out and can subscribe again.
    private func confirmSubscriptions(_ topics: [[UInt8]]) {
        let now = ContinuousClock.now
        if now - confirmationWindowStart >= .seconds(1) {
            confirmationWindowStart = now
            confirmationsInWindow = 0
        }
        for topic in topics {
            guard confirmationsInWindow < Self.maxConfirmationsPerSecond else {
                core.recordDroppedConfirmation()
                continue
            }
            confirmationsInWindow += 1
            core.subscribed(topic: topic)
        }
    }

    /// Whether anyone reads the stream, through the XPUB or in process.
    var hasSubscribers: Bool { !subscribedTopics.isEmpty || !outcomeFeeds.isEmpty }

    /// Whether a subscriber of the XPUB would get `message`. Only a few prefixes are checked;
    /// past that (a flood of subscriptions) libzmq's own matching decides.
    func reachesSubscribers(_ message: StreamMessage) -> Bool {
        if case .event(let topic, _, _) = message, subscribedTopics.count <= 64,
           !subscribedTopics.contains(where: { topic.starts(with: $0) }) {
            return false
        }
        return true
    }

    // MARK: In-process feeds

    /// Adds an in-process reader of every published outcome; `removeFeed` is called with its id
    /// when its stream ends.
    func addFeed(_ continuation: AsyncStream<WireOutcome>.Continuation) -> Int {
        lastFeedID += 1
        outcomeFeeds[lastFeedID] = continuation
        return lastFeedID
    }

    func removeFeed(_ id: Int) {
        outcomeFeeds[id] = nil
    }

    /// Hands an outcome to the in-process feeds at once. Each outcome is published under two
    /// topics; the feeds take the action-first one.
    func feed(_ message: StreamMessage) {
        if !outcomeFeeds.isEmpty, case .event(let topic, _, let outcome) = message, topic.first == UInt8(ascii: "A") {
            for feed in outcomeFeeds.values { feed.yield(outcome) }
        }
    }

    // MARK: Sending

    /// Sends the events of a batch that passed the commit gate, in order.
    func send(_ events: [StreamMessage]) {
        for event in events {
            gather(event)
        }
        sendEventRuns()
    }

    /// Events go out a run at a time: consecutive events of one topic in one EVENT. A
    /// subscriber sees either action-first or session-first topics (its prefix starts with one
    /// or the other), so each kind keeps its own run and the order within each kind stays as
    /// numbered; anything else goes out after what was gathered before it.
    func gather(_ message: StreamMessage) {
        guard case .event(let topic, let sequences, let outcome) = message else {
            sendEventRuns()
            deliver(message)
            return
        }
        let kind = topic.first == UInt8(ascii: "S") ? 1 : 0
        if eventRunTopics[kind] != topic || eventRuns[kind].isFull(adding: outcome.byteCount) {
            sendEventRun(kind)
            eventRunTopics[kind] = topic
        }
        eventRuns[kind].append(OutcomeEvent(sequences: sequences, outcome: outcome), bytes: outcome.byteCount)
    }

    /// Sends the runs gathered so far.
    func sendEventRuns() {
        sendEventRun(0)
        sendEventRun(1)
    }

    private func sendEventRun(_ kind: Int) {
        guard !eventRuns[kind].records.isEmpty else { return }
        let events = eventRuns[kind].take()
        let topic = eventRunTopics[kind]
        deliver(events.count == 1
            ? .event(topic: topic, sequences: events[0].sequences, outcome: events[0].outcome)
            : .eventBatch(topic: topic, events: events))
    }

    private func deliver(_ message: StreamMessage) {
        outgoing.removeAll()
        message.encode(into: &outgoing)
        do {
            try outcomes.sendBusMessage(outgoing, envelope: 1, options: .dontWait)
        } catch {
            // A matching subscriber's queue is full (XPUB_NODROP refuses the whole send). Count
            // it, then send again in lossy mode: libzmq drops the message for the full
            // subscribers only (and parks them until they read again, so their later drops are
            // silent), and they see the gap in the sequence numbers. The request path never
            // waits for a subscriber.
            core?.recordStreamOverflow()
            warnAboutDrops()
            do {
                try outcomes.setOption(.xpubNoDrop, false)
                try outcomes.sendBusMessage(outgoing, envelope: 1, options: .dontWait)
            } catch {
                logger.debug("outcome stream send failed", metadata: ["zmq.error": "\(error)"])
            }
            try? outcomes.setOption(.xpubNoDrop, true)
        }
    }

    /// At most one warning per 10 s, with the running count.
    private func warnAboutDrops() {
        let now = ContinuousClock.now
        if let last = lastDropWarning, now - last < .seconds(10) { return }
        lastDropWarning = now
        logger.warning("outcome stream overflowed for a slow subscriber; it misses outcomes until it catches up", metadata: [
            "stream.overflows": "\(core?.statistics.streamOverflows ?? 0)",
        ])
    }
}
