#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One perform in flight: its identity, its ``ActionRunState`` and its deadline's timer entry,
/// behind one lock.
///
/// One allocation: the fields and a pthread mutex in a `ManagedBuffer` (as `Locked` keeps a value
/// with its mutex, and for the same reason: ThreadSanitizer sees what a pthread mutex guards),
/// held by a struct whose copies share it as references to a class would. A class holding a
/// `Locked` was two, and a worker makes a run for every request.
@usableFromInline
struct ActionRun: @unchecked Sendable {
    /// What the mutex guards.
    struct Guarded {
        var phase = ActionRunState.running(cancelHandlers: [])
        var deadlineEntry: ActionDeadlineTimer.Token?
        /// The action promised to complete later, or the perform ended without it.
        var endsAsynchronously = false
    }

    @usableFromInline
    struct Fields {
        // The first three are set once and read without the lock.
        let id: ActionRequestID
        let deadline: ContinuousClock.Instant?
        let timer: ActionDeadlineTimer
        /// Only under the mutex, and only through ``ActionRun/withLock(_:)``, which lends this
        /// field alone: lending the whole header would count as writing the fields read
        /// without the lock.
        var guarded = Guarded()
    }

    /// The fields (header) and their mutex (the single element).
    @usableFromInline
    final class Storage: ManagedBuffer<Fields, pthread_mutex_t> {
        deinit {
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }

    @usableFromInline let storage: Storage

    @usableFromInline
    init(id: ActionRequestID, deadline: ContinuousClock.Instant?, timer: ActionDeadlineTimer = .shared) {
        let fields = Fields(id: id, deadline: deadline, timer: timer)
        let buffer = Storage.create(minimumCapacity: 1) { _ in fields }
        buffer.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
        // `create` is declared on ManagedBuffer; the instance is of the subclass.
        storage = unsafeDowncast(buffer, to: Storage.self)
    }

    @usableFromInline var id: ActionRequestID { storage.withUnsafeMutablePointerToHeader { $0.pointee.id } }
    @usableFromInline var deadline: ContinuousClock.Instant? { storage.withUnsafeMutablePointerToHeader { $0.pointee.deadline } }
    private var timer: ActionDeadlineTimer { storage.withUnsafeMutablePointerToHeader { $0.pointee.timer } }

    /// Where `guarded` lies in the header. The lock lends it through a pointer of its own:
    /// `&fields.pointee.guarded` counts, for ThreadSanitizer, as a write of the whole header,
    /// and every lock-free read of the id was reported as a race (tried).
    private static let guardedOffset = MemoryLayout<Fields>.offset(of: \Fields.guarded)!

    /// Runs `body` on the guarded fields, holding the mutex.
    private func withLock<Result>(_ body: (inout Guarded) -> Result) -> Result {
        storage.withUnsafeMutablePointers { fields, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            let guarded = UnsafeMutableRawPointer(fields).advanced(by: Self.guardedOffset).assumingMemoryBound(to: Guarded.self)
            return body(&guarded.pointee)
        }
    }

    /// Runs `expire` at the deadline unless the run ends first; the entry (and what `expire`
    /// holds) is dropped as soon as the run ends.
    @usableFromInline
    func armDeadline(_ expire: @escaping @Sendable () -> Void) {
        guard let deadline else { return }
        let entry = timer.schedule(at: deadline, expire)
        let ended = withLock { guarded -> Bool in
            guard case .running = guarded.phase else { return true }
            guarded.deadlineEntry = entry
            return false
        }
        if ended { timer.cancel(entry) }
    }

    @usableFromInline
    func actionCompleted() -> ActionRunState.CompletionDecision {
        let (decision, entry) = withLock { guarded in
            (guarded.phase.actionCompleted(), guarded.deadlineEntry.take())
        }
        if let entry { timer.cancel(entry) }
        return decision
    }

    /// Ends the run with `code` and runs the cancel handlers (outside the lock).
    @usableFromInline
    func terminate(_ code: ActionError.Code) -> Bool {
        let (decision, entry) = withLock { guarded in
            (guarded.phase.terminate(code), guarded.deadlineEntry.take())
        }
        if let entry { timer.cancel(entry) }
        switch decision {
        case .deliver(let handlers):
            handlers.forEach { $0() }
            return true
        case .ignore:
            return false
        }
    }

    @usableFromInline
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        if !withLock({ $0.phase.addCancelHandler(handler) }) {
            handler()
        }
    }

    /// The action promised to complete later (`willCompleteAsync`), or the perform ended
    /// without it (a timeout, a cancellation): Flint's `completedAsync`.
    @usableFromInline
    var completedAsync: Bool { withLock { $0.endsAsynchronously } }

    @usableFromInline
    func markCompletingAsynchronously() {
        withLock { $0.endsAsynchronously = true }
    }

    @usableFromInline
    var isTerminated: Bool {
        withLock { $0.phase.isTerminated }
    }
}
