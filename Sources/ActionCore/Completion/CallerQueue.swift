import Dispatch
import Foundation

/// The one rule for where a completion handler runs when the caller does not say, shared by
/// `ActionSession` and `ActionClient` (see docs/FLINT.md, "Completion queues"):
///
/// 1. the queue the caller passes;
/// 2. else the `OperationQueue` the caller is running in, captured at the call (the
///    *avoid queue jumping* seed: you are called back where you called from), but not the main
///    queue when the caller is on the main thread outside the main run loop (on Linux
///    `OperationQueue.current` names the main queue on any code of the main thread, even when
///    nothing runs that queue, and a program blocking its main thread for the callback would
///    never get it);
/// 3. else where the perform's work is: in a session, the action's executor (Flint's default);
///    in a client, its own serial callback queue.
///
/// A caller on the main thread that wants its callback on the main queue outside a run loop
/// passes `.main` (and services the main queue).
public enum CallerQueue {
    /// The operation queue the caller runs in, by rule 2, or `nil`.
    public static var current: OperationQueue? {
        // Only the main queue needs the thread asked about: `Thread.isMainThread` is two system
        // calls on Linux (`gettid`, `getpid`), a tenth of an in-process perform when asked first.
        guard let current = OperationQueue.current else { return nil }
        guard current === OperationQueue.main else { return current }
        let isMainThread = Thread.isMainThread
        return choice(
            current: current,
            isMainThread: isMainThread,
            mainRunLoopIsRunning: isMainThread && RunLoop.current.currentMode != nil
        )
    }

    /// Rule 2's decision. On the main thread, `OperationQueue.current` is the main queue
    /// whatever runs; the main queue is only a place the callback can reach while the main
    /// run loop runs (the caller is then inside its work). Off the main thread it names the main
    /// queue only inside one of that queue's operations.
    static func choice(current: OperationQueue?, isMainThread: Bool, mainRunLoopIsRunning: Bool) -> OperationQueue? {
        guard let current else { return nil }
        if current === OperationQueue.main, isMainThread, !mainRunLoopIsRunning { return nil }
        return current
    }
}
