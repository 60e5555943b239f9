import Dispatch
import Foundation

/// Runs work on the main queue: inline when called on the main thread or the main queue,
/// otherwise asynchronously on the main queue (the *Executors* seed's `MainDirectExecutor`,
/// what `UIAction`s declare).
///
/// The main queue runs only while something services it: a run loop on the main thread, or
/// `dispatchMain()` (which Swift concurrency's main executor uses on Linux: the main queue's
/// blocks then run on other threads, one at a time, so "main" means the queue, not the thread).
public struct MainDirectExecutor: ActionExecutor {
    /// Creates the executor.
    public init() {}

    /// `"main"`.
    public var name: String? { "main" }

    /// Whether the caller is on the main thread or the main queue.
    public var isCurrent: Bool { Thread.isMainThread || QueueIdentity.isCurrent(.main) }

    /// Runs `work` inline on the main thread or queue, otherwise on the main queue.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        if isCurrent {
            work()
        } else {
            DispatchQueue.main.async(execute: work)
        }
    }
}
