import CZeroMQ

/// Flags for a send.
package struct SendOptions: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }
    /// `ZMQ_DONTWAIT`: fail with ``ZMQError/Code/wouldBlock`` instead of blocking.
    package static let dontWait = SendOptions(rawValue: ZMQ_DONTWAIT)
    /// `ZMQ_SNDMORE`: more frames of this message follow.
    package static let more = SendOptions(rawValue: ZMQ_SNDMORE)
}

/// Flags for a receive.
package struct ReceiveOptions: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }
    /// `ZMQ_DONTWAIT`: fail with ``ZMQError/Code/wouldBlock`` when nothing is queued.
    package static let dontWait = ReceiveOptions(rawValue: ZMQ_DONTWAIT)
}

/// A ZeroMQ socket, confined to the thread that uses it.
///
/// libzmq sockets are not thread-safe, so `Socket` is deliberately not `Sendable`: the
/// compiler keeps it in one isolation domain. Close it with ``close()`` when done; `deinit`
/// closes a socket that was not closed, as a safety net. Sockets start with `LINGER` 0, so
/// closing never blocks on unsent messages.
package final class Socket {
    /// The socket's pattern.
    package let type: SocketType
    let handle: UnsafeMutableRawPointer
    private let context: ZMQContext
    /// Whether ``close()`` has run.
    package private(set) var isClosed = false

    /// Opens a socket of `type` in `context`, with `LINGER` 0.
    package init(_ context: ZMQContext, type: SocketType) throws {
        guard let handle = zmq_socket(context.handle, type.rawValue) else {
            throw ZMQError.last("zmq_socket")
        }
        self.type = type
        self.handle = handle
        self.context = context
        context.socketOpened()
        try setOption(.linger, 0)
    }

    deinit { close() }

    /// Closes the socket; later calls do nothing.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        zmq_close(handle)
        context.socketClosed()
    }

    // MARK: Endpoints

    /// Binds to an endpoint such as `tcp://127.0.0.1:*` or `inproc://name`.
    package func bind(_ endpoint: String) throws {
        guard zmq_bind(handle, endpoint) == 0 else { throw ZMQError.last("zmq_bind(\(endpoint))") }
    }

    /// Connects to an endpoint.
    package func connect(_ endpoint: String) throws {
        guard zmq_connect(handle, endpoint) == 0 else { throw ZMQError.last("zmq_connect(\(endpoint))") }
    }

    /// Stops listening on an endpoint bound earlier (use ``lastEndpoint`` for wildcard ports).
    package func unbind(_ endpoint: String) throws {
        guard zmq_unbind(handle, endpoint) == 0 else { throw ZMQError.last("zmq_unbind(\(endpoint))") }
    }

    /// Disconnects from an endpoint connected earlier.
    package func disconnect(_ endpoint: String) throws {
        guard zmq_disconnect(handle, endpoint) == 0 else { throw ZMQError.last("zmq_disconnect(\(endpoint))") }
    }

    /// The endpoint last bound, with the port the system chose for `*`.
    package var lastEndpoint: String {
        get throws { try option(.lastEndpoint) }
    }

    // MARK: Sending

    /// Sends one frame holding a copy of `bytes`.
    package func send(_ bytes: UnsafeRawBufferPointer, options: SendOptions = []) throws {
        while zmq_send(handle, bytes.baseAddress, bytes.count, options.rawValue) < 0 {
            let error = ZMQError.last("zmq_send")
            // A blocking send interrupted by a signal has sent nothing: retry it.
            guard error.code == .interrupted, !options.contains(.dontWait) else { throw error }
        }
    }

    /// Sends one frame holding a copy of `bytes`.
    package func send(_ bytes: [UInt8], options: SendOptions = []) throws {
        try bytes.withUnsafeBytes { try send($0, options: options) }
    }

    /// Sends one frame holding a copy of `bytes`.
    package func send(_ bytes: ArraySlice<UInt8>, options: SendOptions = []) throws {
        try bytes.withUnsafeBytes { try send($0, options: options) }
    }

    /// Sends one frame holding the UTF-8 bytes of `text`.
    package func send(_ text: String, options: SendOptions = []) throws {
        var text = text
        try text.withUTF8 { try send(UnsafeRawBufferPointer($0), options: options) }
    }

    /// Sends `message` without copying its bytes; the message is consumed even if the send fails.
    package func send(_ message: consuming Message, options: SendOptions = []) throws {
        // On success libzmq empties the zmq_msg_t; closing the empty frame in deinit is then a no-op.
        while zmq_msg_send(message.pointer, handle, options.rawValue) < 0 {
            let error = ZMQError.last("zmq_msg_send")
            guard error.code == .interrupted, !options.contains(.dontWait) else { throw error }
        }
    }

    /// Sends one frame of `count` bytes that `fill` writes in place (every one of them): a
    /// message made straight into libzmq's buffer, with no copy of its own.
    package func send(count: Int, options: SendOptions = [], _ fill: (UnsafeMutableRawBufferPointer) -> Void) throws {
        try withUnsafeTemporaryAllocation(of: zmq_msg_t.self, capacity: 1) { buffer in
            let frame = buffer.baseAddress!
            guard zmq_msg_init_size(frame, count) == 0 else { throw ZMQError.last("zmq_msg_init_size") }
            // On success libzmq empties the frame; closing it then is a no-op.
            defer { zmq_msg_close(frame) }
            fill(UnsafeMutableRawBufferPointer(start: zmq_msg_data(frame), count: count))
            while zmq_msg_send(frame, handle, options.rawValue) < 0 {
                let error = ZMQError.last("zmq_msg_send")
                guard error.code == .interrupted, !options.contains(.dontWait) else { throw error }
            }
        }
    }

    /// Sends every frame of `message` as one multipart message.
    ///
    /// With `.dontWait`, libzmq queues a multipart message atomically: if the first frame is
    /// accepted the rest are too, so a ``ZMQError/Code/wouldBlock`` means nothing was sent.
    package func send(_ message: Multipart, options: SendOptions = []) throws {
        let last = message.count - 1
        guard last >= 0 else { return }
        for index in 0...last {
            let frameOptions = index < last ? options.union(.more) : options.subtracting(.more)
            try message.withFrame(index) { try send($0, options: frameOptions) }
        }
    }

    // MARK: Receiving

    /// Receives one frame and calls `body` with its bytes and whether more frames follow.
    ///
    /// The bytes are valid only inside `body`; nothing is allocated on the Swift heap.
    package func receive<R>(
        options: ReceiveOptions = [],
        _ body: (UnsafeRawBufferPointer, _ more: Bool) throws -> R
    ) throws -> R {
        try receiveFrame(options: options) { frame in
            try body(UnsafeRawBufferPointer(start: zmq_msg_data(frame), count: zmq_msg_size(frame)), zmq_msg_more(frame) != 0)
        }
    }

    /// Receives one frame into a `zmq_msg_t` that lives only for `body` (a stack slot with a
    /// fixed address: a live `zmq_msg_t` must never be copied).
    private func receiveFrame<R>(options: ReceiveOptions, _ body: (UnsafeMutablePointer<zmq_msg_t>) throws -> R) throws -> R {
        try withUnsafeTemporaryAllocation(of: zmq_msg_t.self, capacity: 1) { buffer in
            let frame = buffer.baseAddress!
            zmq_msg_init(frame)
            defer { zmq_msg_close(frame) }
            while zmq_msg_recv(frame, handle, options.rawValue) < 0 {
                let error = ZMQError.last("zmq_msg_recv")
                guard error.code == .interrupted, !options.contains(.dontWait) else { throw error }
            }
            return try body(frame)
        }
    }

    /// Receives one frame as an owned ``Message`` (no copy of its bytes).
    package func receiveMessage(options: ReceiveOptions = []) throws -> Message {
        let message = Message()
        while zmq_msg_recv(message.pointer, handle, options.rawValue) < 0 {
            let error = ZMQError.last("zmq_msg_recv")
            guard error.code == .interrupted, !options.contains(.dontWait) else { throw error }
        }
        return message
    }

    /// Receives a whole multipart message into `message`, replacing what it held.
    ///
    /// Reusing one `Multipart` for every receive allocates nothing per frame. Once the first
    /// frame has arrived, the remaining frames are already queued, so they never block.
    ///
    /// Each frame is added by `append` (given the frame's bytes, its index in the message and
    /// whether more follow), as it came unless told otherwise: a protocol that packs several
    /// frames into one unpacks them there, from libzmq's buffer, with no copy between.
    package func receive(into message: inout Multipart, options: ReceiveOptions = [], appending append: FrameAppender = appendWhole) throws {
        var userID: String?
        try receive(into: &message, options: options, userID: &userID, readsUserID: false, appending: append)
    }

    /// Adds one received frame to a message: the frame's bytes (valid only for the call), its
    /// index in the message, and whether more frames follow.
    package typealias FrameAppender = (_ message: inout Multipart, _ frame: UnsafeRawBufferPointer, _ index: Int, _ more: Bool) -> Void

    /// Adds the frame as it came: what a receive does unless told otherwise.
    package static func appendWhole(_ message: inout Multipart, _ frame: UnsafeRawBufferPointer, _ index: Int, _ more: Bool) {
        message.append(frame)
    }

    /// Receives a whole multipart message into `message`; with `readsUserID`, also the user id a
    /// ZAP handler authenticated its connection under (`nil` when none was given).
    private func receive(
        into message: inout Multipart, options: ReceiveOptions, userID: inout String?, readsUserID: Bool, appending append: FrameAppender
    ) throws {
        message.removeAll()
        userID = nil
        var options = options
        var more = true
        var index = 0
        while more {
            more = try receiveFrame(options: options) { frame in
                let more = zmq_msg_more(frame) != 0
                append(&message, UnsafeRawBufferPointer(start: zmq_msg_data(frame), count: zmq_msg_size(frame)), index, more)
                // A ROUTER's routing-id frame carries no metadata; the frames from the peer do.
                if readsUserID, userID == nil, let value = zmq_msg_gets(frame, "User-Id") { userID = String(cString: value) }
                return more
            }
            options = []
            index += 1
        }
    }

    /// Receives a whole multipart message into `message` if one is queued, without blocking.
    ///
    /// - Returns: `false` when nothing is queued (or the socket can no longer receive), so an I/O
    ///   loop can read a bounded batch: `while socket.receiveIfAvailable(into: &buffer) { … }`.
    package func receiveIfAvailable(into message: inout Multipart, appending append: FrameAppender = appendWhole) -> Bool {
        var userID: String?
        return (try? receive(into: &message, options: .dontWait, userID: &userID, readsUserID: false, appending: append)) != nil
    }

    /// Receives a whole multipart message if one is queued, with the user id its connection was
    /// authenticated under by a ZAP handler (`nil` when none was given, as without CURVE).
    package func receiveIfAvailable(
        into message: inout Multipart, userID: inout String?, appending append: FrameAppender = appendWhole
    ) -> Bool {
        (try? receive(into: &message, options: .dontWait, userID: &userID, readsUserID: true, appending: append)) != nil
    }

    /// Receives a whole multipart message.
    package func receiveMultipart(options: ReceiveOptions = []) throws -> Multipart {
        var message = Multipart()
        try receive(into: &message, options: options)
        return message
    }

    /// Receives one frame as text (for tests and simple protocols).
    package func receiveString(options: ReceiveOptions = []) throws -> String {
        try receive(options: options) { bytes, _ in String(decoding: bytes, as: UTF8.self) }
    }
}
