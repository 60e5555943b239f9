/// A perform that did not produce an outcome: the bus could not be reached in time, or the
/// coordinator refused the message.
public struct ActionBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error code, such as `timedOut` or `malformedRequest`.
    public var code: String
    /// What happened.
    public var message: String

    /// Creates an error.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The client gave up waiting for an outcome of a request, with the coordinator answering.
    public static func timedOut(_ requestID: String, after timeout: Duration) -> ActionBusError {
        ActionBusError(
            code: "timedOut",
            message: "no outcome for \(requestID) within \(timeout): the coordinator answers, but no worker finished it in time "
                + "(`actionbus workers` and `actionbus queues` show what runs and what waits)"
        )
    }

    /// The client gave up waiting, and no coordinator ever answered it: code `unreachable`, so
    /// that a program tells it from a coordinator that answers but finished nothing in time.
    public static func unreachable(_ endpoint: String, after timeout: Duration) -> ActionBusError {
        ActionBusError(
            code: "unreachable",
            message: "no coordinator answered at \(endpoint) within \(timeout): is `actionbus coordinator` running, "
                + "and is \(endpoint) its clients endpoint?"
        )
    }

    /// The client gave up waiting, with a coordinator that had answered and then fell silent
    /// (for heartbeat × liveness, `lastHeard` ago): it may have exited, or be cut off. Code
    /// `unreachable`, not `timedOut`: no worker was too slow, the coordinator stopped answering.
    /// `accepted` says whether it had confirmed the request (ACCEPTED: recorded, with a journal
    /// on disk, so a coordinator restarted on that journal still runs it).
    public static func stoppedAnswering(_ requestID: String, accepted: Bool, lastHeard: Duration, after timeout: Duration) -> ActionBusError {
        let silence = "last heard \(secondsText(lastHeard)) s ago"
        return ActionBusError(
            code: "unreachable",
            message: accepted
                ? "no outcome for \(requestID) within \(timeout): the coordinator accepted the request, then stopped answering (\(silence)); "
                    + "is `actionbus coordinator` still running? One restarted on its journal still runs what it accepted"
                : "no outcome for \(requestID) within \(timeout): the coordinator stopped answering (\(silence)) "
                    + "before it confirmed the request; is `actionbus coordinator` still running?"
        )
    }

    /// `duration` in seconds with one decimal: `4.2`.
    private static func secondsText(_ duration: Duration) -> String {
        let tenths = duration.components.seconds * 10 + duration.components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// The client was closed with the request outstanding.
    public static let closed = ActionBusError(code: "clientClosed", message: "the client was closed")

    public var description: String { "\(code): \(message)" }
}
