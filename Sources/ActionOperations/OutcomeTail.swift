import ActionWire
import FlyingFox
import Foundation
import Locking

/// The dashboard's live tail: the latest outcomes the coordinator published, for `/api/outcomes`,
/// and every new one pushed to each open WebSocket (`/api/live`) as one line of outcome JSON.
public final class OutcomeTail: WSMessageHandler, Sendable {
    private struct State {
        var recent: [WireOutcome] = []
        var listeners: [Int: AsyncStream<WSMessage>.Continuation] = [:]
        var lastListener = 0
    }

    /// How many recent outcomes it keeps.
    public let capacity: Int
    private let state = Locked(State())

    /// A tail keeping the newest `capacity` outcomes.
    public init(capacity: Int = 200) {
        self.capacity = capacity
    }

    /// Reads `feed` (``ActionCoordinator/Coordinator/outcomeFeed(buffer:)``) until it ends.
    public func run(feed: AsyncStream<WireOutcome>) async {
        for await outcome in feed {
            let listeners = state.withLock { state -> [AsyncStream<WSMessage>.Continuation] in
                state.recent.append(outcome)
                if state.recent.count > capacity { state.recent.removeFirst(state.recent.count - capacity) }
                return Array(state.listeners.values)
            }
            // Encoded once for every open page, and not at all while none is open.
            guard !listeners.isEmpty else { continue }
            let line = String(decoding: OutcomeJSON.encode(outcome), as: UTF8.self)
            for listener in listeners { listener.yield(.text(line)) }
        }
    }

    /// The recent outcomes that match the filters (a feature, a `Feature.action`, a session),
    /// newest last, at most `limit`.
    public func recent(feature: String?, action: String?, session: String?, limit: Int) -> [WireOutcome] {
        let matching = state.withLock { $0.recent }.filter { outcome in
            (feature.map { outcome.feature == $0 } ?? true) && (action.map { outcome.action == $0 } ?? true)
                && (session.map { outcome.session == $0 } ?? true)
        }
        return Array(matching.suffix(limit))
    }

    /// A WebSocket client: it gets every outcome published while it is connected.
    public func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let (messages, continuation) = AsyncStream<WSMessage>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        let id = state.withLock { state -> Int in
            state.lastListener += 1
            state.listeners[state.lastListener] = continuation
            return state.lastListener
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) } }
        // When the browser goes, stop pushing to it.
        Task { [weak self] in
            for await _ in client {}
            continuation.finish()
            self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) }
        }
        return messages
    }
}
