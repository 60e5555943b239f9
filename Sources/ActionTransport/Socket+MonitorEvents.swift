import ZeroMQ

extension Socket {
    /// Reads what a monitor PAIR (``IOLoopRuntime/monitorConnections(of:name:events:)``) has
    /// queued, at most `limit` events, into `buffer`, and returns their union.
    package func receiveMonitorEvents(using buffer: inout Multipart, limit: Int = 256) -> SocketMonitorEvents {
        var events: SocketMonitorEvents = []
        for _ in 0..<limit {
            guard receiveIfAvailable(into: &buffer) else { break }
            if buffer.count >= 1 { events.formUnion(SocketMonitorEvents(monitorFrame: buffer[0])) }
        }
        return events
    }
}
