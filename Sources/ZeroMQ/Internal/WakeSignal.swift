import CZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// An eventfd that other threads write to wake an I/O loop blocked in `zmq_poll`.
///
/// `zmq_poll` watches plain file descriptors beside sockets, so ringing costs one `write` and
/// needs no extra ZeroMQ socket pair.
@usableFromInline
final class WakeSignal: Sendable {
    let fileDescriptor: Int32

    init() throws {
        let fd = eventfd(0, CZMQ_EFD_CLOEXEC | CZMQ_EFD_NONBLOCK)
        guard fd >= 0 else { throw ZMQError(errno: errno, call: "eventfd") }
        fileDescriptor = fd
    }

    deinit { Glibc.close(fileDescriptor) }

    /// Makes the descriptor readable until the next ``drain()``.
    @usableFromInline
    func ring() {
        var one: UInt64 = 1
        // EAGAIN means the counter is saturated, which still reads as "readable": nothing to do.
        _ = withUnsafeBytes(of: &one) { write(fileDescriptor, $0.baseAddress, 8) }
    }

    /// Resets the descriptor to unreadable.
    func drain() {
        var count: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &count) { read(fileDescriptor, $0.baseAddress, 8) }
    }
}
