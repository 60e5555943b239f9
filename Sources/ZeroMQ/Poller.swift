import CZeroMQ

/// Events a ``Poller`` waits for or reports.
package struct PollEvents: OptionSet, Sendable {
    package let rawValue: Int16
    package init(rawValue: Int16) { self.rawValue = rawValue }
    /// A message (or bytes, for a file descriptor) can be read.
    package static let readable = PollEvents(rawValue: Int16(ZMQ_POLLIN))
    /// A message can be sent without blocking.
    package static let writable = PollEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// An error condition (file descriptors only).
    package static let error = PollEvents(rawValue: Int16(ZMQ_POLLERR))
}

/// `zmq_poll` over several sockets and plain file descriptors.
///
/// A poller belongs to the thread that owns its sockets. It keeps each socket alive while the
/// socket is registered.
package struct Poller {
    private var items: [zmq_pollitem_t] = []
    private var sockets: [Socket?] = []

    /// An empty poller.
    package init() {}

    /// The number of registered items.
    package var count: Int { items.count }

    /// Registers `socket` and returns its index.
    @discardableResult
    package mutating func add(_ socket: Socket, events: PollEvents = .readable) -> Int {
        items.append(zmq_pollitem_t(socket: socket.handle, fd: 0, events: events.rawValue, revents: 0))
        sockets.append(socket)
        return items.count - 1
    }

    /// Registers a file descriptor (an eventfd, a pipe) and returns its index.
    @discardableResult
    package mutating func add(fileDescriptor: Int32, events: PollEvents = .readable) -> Int {
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: events.rawValue, revents: 0))
        sockets.append(nil)
        return items.count - 1
    }

    /// Removes the item at `index`; later indices shift down by one.
    package mutating func remove(at index: Int) {
        items.remove(at: index)
        sockets.remove(at: index)
    }

    /// Removes every registered item.
    package mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        sockets.removeAll(keepingCapacity: true)
    }

    /// The index of `socket`, if registered.
    package func index(of socket: Socket) -> Int? {
        sockets.firstIndex { $0 === socket }
    }

    /// Waits until an item is ready or `timeoutMilliseconds` pass (-1 waits forever).
    ///
    /// - Returns: the number of ready items; 0 when the timeout passed.
    /// - Throws: ``ZMQError`` with ``ZMQError/Code/interrupted`` when a signal arrived, or
    ///   ``ZMQError/Code/terminated`` when the context was shut down.
    @discardableResult
    package mutating func poll(timeoutMilliseconds: Int) throws -> Int {
        let ready = items.withUnsafeMutableBufferPointer { buffer in
            zmq_poll(buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
        }
        guard ready >= 0 else { throw ZMQError.last("zmq_poll") }
        return Int(ready)
    }

    /// Waits until an item is ready or `timeout` passes.
    @discardableResult
    package mutating func poll(timeout: Duration) throws -> Int {
        try poll(timeoutMilliseconds: timeout.roundedUpMilliseconds)
    }

    /// The events the last ``poll(timeoutMilliseconds:)`` reported for item `index`.
    package func events(at index: Int) -> PollEvents {
        PollEvents(rawValue: items[index].revents)
    }

    /// Whether item `index` was readable at the last poll.
    package func isReadable(_ index: Int) -> Bool {
        events(at: index).contains(.readable)
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a poll never wakes before a deadline.
    var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(0, milliseconds))
    }
}
