import ActionWire
import ZeroMQ

extension IOLoopRuntime {
    /// A DEALER connected to a coordinator, with the bus's limits: libzmq drops a peer that sends
    /// a frame larger than a packed message of `maxMessageBytes` can be
    /// (``WirePacking/maxFrameBytes(maxMessageBytes:)``), and the queues are deep enough for
    /// thousands of requests in flight. With a `routingID` the coordinator's ROUTER knows the
    /// peer by it across reconnections (it takes the identity over from a dead connection).
    package func makeBusDealer(
        connectingTo endpoint: String, maxMessageBytes: Int, immediate: Bool = false, routingID: [UInt8]? = nil,
        curve: CurveClientKeys? = nil
    ) throws -> Socket {
        let socket = try makeSocket(.dealer)
        do {
            try curve?.apply(to: socket)
            if let routingID { try socket.setOption(.routingID, routingID) }
            try socket.setOption(.maxMessageSize, WirePacking.maxFrameBytes(maxMessageBytes: maxMessageBytes))
            try socket.setOption(.immediate, immediate)
            try socket.setOption(.sendHighWaterMark, 100_000)
            try socket.setOption(.receiveHighWaterMark, 100_000)
            try socket.connect(endpoint)
        } catch {
            socket.close()
            throw error
        }
        return socket
    }
}

extension IOLoop {
    /// Reads a value from the driver on the loop thread; `fallback` when the loop has stopped.
    package func read<Value: Sendable>(_ fallback: Value, _ body: @escaping @Sendable (Driver) -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            let queued = execute { driver, _ in continuation.resume(returning: body(driver)) }
            if !queued { continuation.resume(returning: fallback) }
        }
    }

    /// Serves until the calling task is cancelled, then stops the loop.
    package func runUntilCancelled() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        await stop()
    }
}

extension IOLoopRuntime {
    /// A PAIR on which `socket`'s connection `events` arrive (the caller registers and closes
    /// it), through `inproc://<name>`, which must be unique in the context.
    package func monitorConnections(of socket: Socket, name: String, events: SocketMonitorEvents) throws -> Socket {
        let endpoint = "inproc://\(name)"
        try socket.monitor(endpoint, events: events)
        let pair = try makeSocket(.pair)
        do {
            try pair.connect(endpoint)
        } catch {
            pair.close()
            throw error
        }
        return pair
    }
}
