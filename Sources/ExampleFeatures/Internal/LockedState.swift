import Foundation

/// Example state shared by every session, guarded by an `NSLock`.
///
/// `NSLock` rather than `Synchronization.Mutex`: on Linux ThreadSanitizer cannot see `Mutex`
/// and would report the guarded accesses as races.
final class LockedState<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
