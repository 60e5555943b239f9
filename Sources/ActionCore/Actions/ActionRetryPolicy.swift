import Foundation

/// How an action is performed again after a failure it marks retryable
/// (``ActionError/isRetryable``): up to ``maxAttempts`` in all, waiting an exponentially growing,
/// jittered backoff between attempts, never past the perform's deadline.
///
/// ```swift
/// enum FetchAction: Action {
///     static let retryPolicy = ActionRetryPolicy.exponential(maxAttempts: 4, initialBackoff: .milliseconds(100))
///     ...
/// }
/// ```
public struct ActionRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 never retries.
    public var maxAttempts: Int
    /// The backoff before the second attempt.
    public var initialBackoff: Duration
    /// How much the backoff grows per attempt.
    public var multiplier: Double
    /// The longest backoff.
    public var maxBackoff: Duration
    /// The fraction of each backoff drawn at random ("equal jitter"): 0.5 waits between half and
    /// all of it, so workers that failed together do not retry together.
    public var jitter: Double

    /// A policy; `maxAttempts` below 1 counts as 1, `jitter` is clamped to 0...1.
    public init(
        maxAttempts: Int, initialBackoff: Duration, multiplier: Double = 2, maxBackoff: Duration = .seconds(30), jitter: Double = 0.5
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = max(.zero, initialBackoff)
        self.multiplier = max(1, multiplier)
        self.maxBackoff = max(self.initialBackoff, maxBackoff)
        self.jitter = min(1, max(0, jitter))
    }

    /// No retries: the default for every action.
    public static let never = ActionRetryPolicy(maxAttempts: 1, initialBackoff: .zero)

    /// Exponential backoff doubling from `initialBackoff`, with half of each backoff jittered.
    public static func exponential(
        maxAttempts: Int, initialBackoff: Duration = .milliseconds(100), maxBackoff: Duration = .seconds(30)
    ) -> ActionRetryPolicy {
        ActionRetryPolicy(maxAttempts: maxAttempts, initialBackoff: initialBackoff, maxBackoff: maxBackoff)
    }

    /// The wait before attempt `attempt` (2 for the first retry), jittered with `generator`.
    public func backoff<Generator: RandomNumberGenerator>(beforeAttempt attempt: Int, using generator: inout Generator) -> Duration {
        // In seconds as Double, so a long run of attempts saturates at maxBackoff instead of overflowing.
        let growth = pow(multiplier, Double(max(0, attempt - 2)))
        let full = min(Self.seconds(initialBackoff) * growth, Self.seconds(maxBackoff))
        let random = Double.random(in: 0...1, using: &generator)
        return .seconds(full * (1 - jitter * random))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The wait before attempt `attempt`, jittered with the system's generator.
    public func backoff(beforeAttempt attempt: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return backoff(beforeAttempt: attempt, using: &generator)
    }
}
