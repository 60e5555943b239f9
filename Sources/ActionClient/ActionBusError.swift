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

    /// The client was closed with the request outstanding.
    public static let closed = ActionBusError(code: "clientClosed", message: "the client was closed")

    public var description: String { "\(code): \(message)" }
}
