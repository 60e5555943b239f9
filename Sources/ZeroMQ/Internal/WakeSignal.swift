import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A descriptor that other threads make readable to wake an I/O loop blocked in `zmq_poll`:
/// an eventfd on Linux, the read end of a non-blocking pipe on Darwin (which has no eventfd).
///
/// `zmq_poll` watches plain file descriptors beside sockets, so ringing costs one `write` and
/// needs no extra ZeroMQ socket pair.
@usableFromInline
final class WakeSignal: Sendable {
    /// The descriptor the loop polls for input: the eventfd, or the pipe's read end.
    let fileDescriptor: Int32
    #if !os(Linux)
    /// The pipe's write end, which ``ring()`` writes to.
    private let writeDescriptor: Int32
    #endif

    init() throws {
        #if os(Linux)
        let fd = eventfd(0, CZMQ_EFD_CLOEXEC | CZMQ_EFD_NONBLOCK)
        guard fd >= 0 else { throw ZMQError(errno: errno, call: "eventfd") }
        fileDescriptor = fd
        #else
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ZMQError(errno: errno, call: "pipe") }
        // No pipe2 on Darwin: both ends are made non-blocking and close-on-exec afterwards.
        for end in ends {
            let flags = fcntl(end, F_GETFL)
            guard flags >= 0, fcntl(end, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(end, F_SETFD, FD_CLOEXEC) == 0 else {
                let code = errno
                _ = close(ends[0])
                _ = close(ends[1])
                throw ZMQError(errno: code, call: "fcntl")
            }
        }
        fileDescriptor = ends[0]
        writeDescriptor = ends[1]
        #endif
    }

    deinit {
        #if os(Linux)
        Glibc.close(fileDescriptor)
        #else
        _ = close(fileDescriptor)
        _ = close(writeDescriptor)
        #endif
    }

    /// Makes the descriptor readable until the next ``drain()``.
    @usableFromInline
    func ring() {
        #if os(Linux)
        var one: UInt64 = 1
        // EAGAIN means the counter is saturated, which still reads as "readable": nothing to do.
        _ = withUnsafeBytes(of: &one) { write(fileDescriptor, $0.baseAddress, 8) }
        #else
        var one: UInt8 = 1
        // EAGAIN means the pipe is full, which still reads as "readable": nothing to do.
        _ = withUnsafeBytes(of: &one) { write(writeDescriptor, $0.baseAddress, 1) }
        #endif
    }

    /// Resets the descriptor to unreadable.
    func drain() {
        #if os(Linux)
        var count: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &count) { read(fileDescriptor, $0.baseAddress, 8) }
        #else
        // One read of the eventfd resets its counter; a pipe holds one byte per ring, so read
        // until a read comes back short (empty: EAGAIN, or the last bytes).
        var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        let size = MemoryLayout.size(ofValue: bytes)
        while withUnsafeMutableBytes(of: &bytes, { read(fileDescriptor, $0.baseAddress, size) }) == size {}
        #endif
    }
}
