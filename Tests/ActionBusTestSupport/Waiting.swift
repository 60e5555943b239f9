import Foundation

/// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether it
/// held. Every wait in the tests is bounded by one. A condition that starts a process (a stats
/// query) should poll less often than one that reads a file.
package func waitUntil(
    timeout: Duration = .seconds(20), interval: Duration = .milliseconds(20), _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    let pause = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: pause)
    }
    return try condition()
}
