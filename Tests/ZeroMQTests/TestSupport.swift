import Foundation
import Testing
@testable import ZeroMQ

/// The transports each pattern is exercised over.
enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inproc, tcp
    var testDescription: String { rawValue }
}

/// Binds `socket` on `transport` and returns the endpoint a peer should connect to.
func bindAnywhere(_ socket: Socket, _ transport: Transport) throws -> String {
    switch transport {
    case .inproc:
        let endpoint = "inproc://test-\(UUID().uuidString)"
        try socket.bind(endpoint)
        return endpoint
    case .tcp:
        // Port 0 via `*`: the system picks a free port, so parallel runs never collide.
        try socket.bind("tcp://127.0.0.1:*")
        return try socket.lastEndpoint
    }
}

/// Gives a socket a receive timeout so a broken test fails instead of hanging.
@discardableResult
func bounded(_ socket: Socket, milliseconds: Int32 = 20_000) throws -> Socket {
    try socket.setOption(.receiveTimeout, milliseconds)
    try socket.setOption(.sendTimeout, milliseconds)
    return socket
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func waitUntil(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.001)
    }
    return try condition()
}
