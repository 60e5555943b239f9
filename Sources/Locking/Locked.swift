import Foundation

/// A value guarded by a lock, shareable across threads.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex` on purpose: on
/// Linux `Mutex` waits on a raw futex that ThreadSanitizer cannot see, so every access it
/// guards is reported as a race, which would hide real ones. State machines live inside and
/// change only through `withLock`.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
