import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed libzmq call: the errno libzmq reported, its text, and the call that failed.
///
/// The codes that callers must tell apart (`wouldBlock`, `interrupted`, `terminated`,
/// `hostUnreachable`) are named; any other errno is still carried in ``errno``.
package struct ZMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A coarse classification of the errno, stable across platforms.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case wouldBlock, interrupted, terminated, hostUnreachable
            case invalidState, messageTooLarge, addressInUse, invalidArgument, other
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// `EAGAIN`: a non-blocking call could not proceed, or a timeout expired.
        package static let wouldBlock = Code(.wouldBlock)
        /// `EINTR`: a signal interrupted the call; retrying is safe.
        package static let interrupted = Code(.interrupted)
        /// `ETERM`: the context was terminated; the socket must be closed.
        package static let terminated = Code(.terminated)
        /// `EHOSTUNREACH`: a ROUTER with `routerMandatory` has no peer with that routing id.
        package static let hostUnreachable = Code(.hostUnreachable)
        /// `EFSM`: the socket's pattern does not allow this call now (REQ/REP lockstep).
        package static let invalidState = Code(.invalidState)
        /// `EMSGSIZE`: a message is larger than allowed.
        package static let messageTooLarge = Code(.messageTooLarge)
        /// `EADDRINUSE`: the endpoint is already bound.
        package static let addressInUse = Code(.addressInUse)
        /// `EINVAL`: an argument (endpoint, option value) was rejected.
        package static let invalidArgument = Code(.invalidArgument)
        /// Any other errno.
        package static let other = Code(.other)

        package var description: String { "\(kind)" }

        init(errno value: Int32) {
            switch value {
            case EAGAIN: self = .wouldBlock
            case EINTR: self = .interrupted
            case ZMQErrno.term: self = .terminated
            case EHOSTUNREACH: self = .hostUnreachable
            case ZMQErrno.fsm: self = .invalidState
            case EMSGSIZE: self = .messageTooLarge
            case EADDRINUSE, ZMQErrno.addressInUse: self = .addressInUse
            case EINVAL: self = .invalidArgument
            default: self = .other
            }
        }
    }

    /// The classification of ``errno``.
    package let code: Code
    /// The errno libzmq reported.
    package let errno: Int32
    /// The libzmq function that failed, such as `zmq_msg_send`.
    package let call: String
    /// `zmq_strerror(errno)`.
    package var message: String { String(cString: zmq_strerror(errno)) }

    /// Creates an error for `errno` raised by `call`.
    package init(errno: Int32, call: String) {
        self.code = Code(errno: errno)
        self.errno = errno
        self.call = call
    }

    /// The error for the calling thread's current `zmq_errno()`.
    static func last(_ call: String) -> ZMQError {
        ZMQError(errno: zmq_errno(), call: call)
    }

    package var description: String { "\(call) failed: \(message) (errno \(errno), \(code))" }
}

/// libzmq's own errno values, which Swift does not import because they are computed macros.
enum ZMQErrno {
    static let hausnumero: Int32 = 156_384_712
    static let addressInUse = hausnumero + 5
    static let fsm = hausnumero + 51
    static let term = hausnumero + 53
}
