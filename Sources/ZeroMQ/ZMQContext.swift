import CZeroMQ
import Synchronization

/// A libzmq context: the owner of I/O threads and the `inproc://` namespace.
///
/// A context is thread-safe and may be shared freely. Every ``Socket`` keeps its context alive,
/// so the context is terminated (`zmq_ctx_term`) only after the last socket made from it is gone.
/// Close sockets explicitly with ``Socket/close()``: a socket leaked in a reference cycle keeps
/// `zmq_ctx_term` waiting forever.
public final class ZMQContext: Sendable {
    nonisolated(unsafe) let handle: UnsafeMutableRawPointer
    private let openSockets = Atomic<Int>(0)
    private let isTerminated = Atomic<Bool>(false)

    /// Creates a context with `ioThreads` libzmq I/O threads.
    public init(ioThreads: Int32 = 1) throws {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        self.handle = handle
        if zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads) != 0 {
            let error = ZMQError.last("zmq_ctx_set")
            zmq_ctx_term(handle)
            throw error
        }
    }

    deinit {
        // Every socket retains the context, so none is open here; EINTR is the only retry case.
        if !isTerminated.load(ordering: .acquiring) { Self.term(handle) }
    }

    /// Terminates the context now, once every socket made from it is closed: queued messages
    /// get up to their sockets' linger to leave. A process about to exit calls it, since a
    /// context still referenced at exit is never terminated and what its sockets queued last
    /// (a worker's DISCONNECT) may never be sent.
    ///
    /// - Returns: `false` (and does nothing) while a socket is still open or if it already ran.
    @discardableResult
    public func terminate() -> Bool {
        guard openSocketCount == 0, !isTerminated.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        Self.term(handle)
        return true
    }

    private static func term(_ handle: UnsafeMutableRawPointer) {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// Makes blocking calls on this context's sockets return ``ZMQError/Code/terminated``.
    ///
    /// Owners then close their sockets; the context itself is terminated when released.
    package func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    /// How many sockets made from this context are open now.
    package var openSocketCount: Int { openSockets.load(ordering: .relaxed) }

    func socketOpened() { openSockets.add(1, ordering: .relaxed) }
    func socketClosed() { openSockets.subtract(1, ordering: .relaxed) }
}
