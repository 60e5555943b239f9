import Dispatch
import Foundation

/// The one rule for where a completion handler runs when the caller does not say, shared by
/// `ActionSession` and `ActionClient` (see docs/FLINT.md, "Completion queues"):
///
/// 1. the queue the caller passes;
/// 2. else the `OperationQueue` the caller is running in, captured at the call (the
///    *avoid queue jumping* seed: you are called back where you called from), but not the main
///    queue when the caller is on the main thread outside the main queue's work (on Linux
///    `OperationQueue.current` names the main queue on the main thread even when nothing runs
///    it, and a program blocking its main thread for the callback would never get it);
/// 3. else where the perform's work is: in a session, the action's executor (Flint's default);
///    in a client, its own serial callback queue.
public enum CallerQueue {
    /// The operation queue the caller runs in, by rule 2, or `nil`.
    public static var current: OperationQueue? {
        guard let queue = OperationQueue.current else { return nil }
        if queue === OperationQueue.main, !QueueIdentity.isCurrent(DispatchQueue.main) { return nil }
        return queue
    }
}
