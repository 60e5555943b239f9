import Dispatch
import Foundation

/// Runs `body` until SIGINT or SIGTERM arrives, then cancels it and waits for it to finish.
func untilTerminated(_ body: @escaping @Sendable () async throws -> Void) async throws {
    let task = Task { try await body() }
    let sources = [SIGINT, SIGTERM].map { signalNumber -> any DispatchSourceSignal in
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { task.cancel() }
        source.resume()
        return source
    }
    defer { sources.forEach { $0.cancel() } }
    try await task.value
}
