import Foundation

/// Waits, without blocking a thread, until `condition` holds or `timeout` passes; returns whether it held.
func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline {
            return condition()
        }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Collects values delivered from any thread, in arrival order.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Value] = []

    func record(_ value: Value) {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(value)
    }

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    var count: Int { values.count }

    var first: Value? { values.first }

    /// Waits until at least `count` values arrived; returns them, or `nil` on timeout.
    func waitForValues(count: Int = 1, timeout: Duration = .seconds(30)) async -> [Value]? {
        await waitUntil(timeout: timeout) { self.count >= count } ? values : nil
    }
}
