#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock, shareable across threads.
///
/// Built on a pthread mutex rather than `Synchronization.Mutex` on purpose: on Linux `Mutex`
/// waits on a raw futex that ThreadSanitizer cannot see, so every access it guards is reported
/// as a race, which would hide real ones. The mutex lives inside the same allocation as the
/// value (a `ManagedBuffer`), and `Locked` itself is a struct holding a reference to it, so a
/// `Locked` costs one allocation, not the three of a class holding an `NSLock`: several are
/// made per request on the bus's hot path. Copies share the value and its lock, as references
/// to a class would. State machines live inside and change only through `withLock`.
///
/// Inlinable throughout: used from every module of the bus, it would otherwise run there
/// unspecialised, looking up its generic metadata on each call.
public struct Locked<Value> {
    @usableFromInline let storage: LockedStorage<Value>

    /// Guards `value`.
    @inlinable
    public init(_ value: Value) {
        storage = LockedStorage.make(value)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withLock(body)
    }
}

/// The value (header) and its mutex (the single element) in one allocation.
@usableFromInline
final class LockedStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    @inlinable
    static func make(_ value: Value) -> LockedStorage<Value> {
        let buffer = create(minimumCapacity: 1) { _ in value }
        buffer.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
        // `create` is declared on ManagedBuffer; the instance is of this subclass.
        return unsafeDowncast(buffer, to: LockedStorage<Value>.self)
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }

    @inlinable @inline(__always)
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// Shareable across threads only when its value is: the lock serialises access, but a
/// non-Sendable value (a class without its own locking) could still escape `withLock` and be
/// used from two threads at once.
extension Locked: @unchecked Sendable where Value: Sendable {}
