import Dispatch
import Locking

/// Runs work on a serial `DispatchQueue`, inline when already on it.
///
/// Running inline is what makes a nested perform on the same serial queue safe: a plain
/// `queue.sync` from inside the queue would deadlock, and `queue.async` would reorder.
public final class SerialQueueExecutor: ActionExecutor {
    /// The serial queue work runs on.
    public let queue: DispatchQueue
    /// The queue's label.
    public let name: String?
    private let identity = QueueIdentity()
    /// Work submitted from other threads and not yet run, when the executor coalesces; `nil`
    /// when each submit is a block of its own.
    private let coalesced: Locked<CoalescedWork>?
    /// Set on the queue by work that suspended it (the `end`-taking `submit`), so that a
    /// coalesced run stops there. Read and written only on the queue.
    private nonisolated(unsafe) var suspendedByWork = false
    /// The coalesced work being run, swapped with the waiting list's storage each turn: both
    /// arrays keep their capacity from one run to the next. A fresh array each run grew by
    /// doubling to a batch's hundred closures, and its large steps made glibc consolidate its
    /// free chunks. Used only on the queue.
    private nonisolated(unsafe) var running: [Work] = []

    /// A closure in a struct: an array of bare closures stores each one behind a reabstraction
    /// thunk, one allocation per append (measured: a worker's every perform paid it).
    private struct Work {
        let run: @Sendable () -> Void
    }

    private struct CoalescedWork {
        var waiting: [Work] = []
        /// A block that runs the waiting work is on the queue (or running).
        var isScheduled = false
        /// ``holdScheduling()`` calls not yet released: while any is, new work waits unscheduled.
        var holds = 0
    }

    /// Creates an executor with a new serial queue.
    public convenience init(label: String, qos: DispatchQoS = .unspecified) {
        self.init(queue: DispatchQueue(label: label, qos: qos))
    }

    /// Wraps an existing queue, which must be serial (the inline rule assumes one block at a time).
    public init(queue: DispatchQueue) {
        self.queue = queue
        self.name = queue.label
        self.coalesced = nil
        identity.mark(queue)
    }

    /// Wraps `queue`, which must be serial and used by no one else; when `coalescing`, work
    /// submitted from other threads while earlier work waits joins it in one block.
    ///
    /// A worker's session queue takes one perform per request, a hundred at a time: as a block
    /// each, every perform paid for a block copy and Dispatch's queue bookkeeping. Coalesced,
    /// the order is the order of the submits, as before; only blocks put on the queue directly
    /// (which is why no one else may use it) could otherwise have run in between.
    package init(queue: DispatchQueue, coalescing: Bool) {
        self.queue = queue
        self.name = queue.label
        self.coalesced = coalescing ? Locked(CoalescedWork()) : nil
        identity.mark(queue)
    }

    /// Whether the calling code runs on this executor's queue.
    public var isCurrent: Bool {
        identity.isCurrent
    }

    /// Runs `work` inline when already on the queue, otherwise asynchronously on it.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        if isCurrent {
            work()
        } else {
            enqueue(work)
        }
    }

    /// Runs `work` on the queue after everything submitted before it, never inline.
    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        guard let coalesced else {
            queue.async(execute: work)
            return
        }
        let schedule = coalesced.withLock { state -> Bool in
            state.waiting.append(Work(run: work))
            guard !state.isScheduled, state.holds == 0 else { return false }
            state.isScheduled = true
            return true
        }
        if schedule { queue.async { [self] in runCoalesced() } }
    }

    /// Lets work submitted from now on wait, unscheduled, until ``releaseScheduling()``, which
    /// then schedules it all in one block (calls nest; a block already running still takes
    /// what joins it). For a coalescing executor only; on another it does nothing.
    ///
    /// A worker's I/O thread submits a message's hundred performs one by one: scheduled as
    /// they came, the queue's thread ran the first few, found none waiting and parked, to be
    /// woken for the next few (measured: nine blocks a message, each a wake-up and a park).
    ///
    /// Nothing may wait on the queue for held work before the release: Flint's callers never
    /// block, and a direct-executor action that did would wait for the end of the batch.
    package func holdScheduling() {
        coalesced?.withLock { $0.holds += 1 }
    }

    /// Ends one ``holdScheduling()``; the last one schedules what waits.
    package func releaseScheduling() {
        guard let coalesced else { return }
        let schedule = coalesced.withLock { state -> Bool in
            precondition(state.holds > 0, "releaseScheduling() without holdScheduling()")
            state.holds -= 1
            guard state.holds == 0, !state.isScheduled, !state.waiting.isEmpty else { return false }
            state.isScheduled = true
            return true
        }
        if schedule { queue.async { [self] in runCoalesced() } }
    }

    /// Runs the waiting work in order, on the queue, until none is left: work that arrives
    /// meanwhile runs in this block too, so nothing submitted later can overtake it.
    private func runCoalesced() {
        guard let coalesced else { return }
        // The batch is taken out of `running` while it runs: work in it may submit more, and
        // that must find the list it joins, not the batch.
        var batch: [Work] = []
        swap(&batch, &running)
        defer { swap(&batch, &running) }
        while true {
            let more = coalesced.withLock { state -> Bool in
                swap(&batch, &state.waiting)
                state.isScheduled = !batch.isEmpty
                return state.isScheduled
            }
            guard more else { return }
            var index = 0
            while index < batch.count {
                batch[index].run()
                index += 1
                if suspendedByWork {
                    // The queue stops when this block returns; the rest runs after its resume.
                    suspendedByWork = false
                    batch.removeFirst(index)
                    coalesced.withLock { $0.waiting.insert(contentsOf: batch, at: 0) }
                    batch.removeAll(keepingCapacity: true)
                    queue.async { [self] in runCoalesced() }
                    return
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Runs `work` inline when already on the queue, otherwise asynchronously on it, and starts
    /// nothing else on the queue until `work` calls `end`.
    ///
    /// The queue is suspended from inside the block (which takes effect when the block
    /// returns) and resumed by `end`. Work nested inside `work`'s synchronous part still runs
    /// inline, so the seed's nested-submit deadlock cannot happen. Work that drops `end` without
    /// calling it ends it when the handle is released. The main queue cannot be suspended
    /// (Dispatch ignores it for its global queues): on it, other work may run while `work`
    /// waits to end.
    public func submit(_ work: @escaping @Sendable (_ end: @escaping @Sendable () -> Void) -> Void) {
        let queue = self.queue
        submit { [self] in
            queue.suspend()
            if coalesced != nil { suspendedByWork = true }
            let ended = EndOnce { queue.resume() }
            work { ended.end() }
        }
    }
}
