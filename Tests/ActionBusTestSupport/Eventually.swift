/// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether it
/// held. The async counterpart of `waitUntil`: it sleeps without holding a thread, which the
/// elector's own tasks need on a two-core machine.
package func eventually(
    timeout: Duration = .seconds(15), interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
