/// The outcome of one request, as workers report it, clients receive it and the stream
/// publishes it.
///
/// Frames: request id, action, session, worker, status (2 bytes: 0 success / 1 failure, then
/// flags: bit 0 closeActionStack, bit 1 nested, bit 2 not user-initiated), then content type and
/// output for a success or error code and message for a failure.
public struct WireOutcome: Sendable, Hashable {
    /// What happened.
    public enum Result: Sendable, Hashable {
        /// The action produced an output.
        case success(contentType: String, output: [UInt8])
        /// The action, or the bus, failed with a code and a message.
        case failure(code: String, message: String)
    }

    /// The request this outcome answers.
    public var requestID: String
    /// The full action name.
    public var action: String
    /// The session the action ran in.
    public var session: String
    /// The name of the worker that ran it; empty when the coordinator answered itself.
    public var worker: String
    /// Whether this outcome closes the feature's action stack.
    public var closeActionStack: Bool
    /// Whether an action performed this one on its worker (Flint's nested perform) rather than a
    /// client requesting it: it answers no request and returns no credit; its id is the
    /// worker's own (`<worker id>/<n>`). The coordinator records it in its stacks and publishes it.
    public var nested = false
    /// Whether the session it ran in counts its actions as user-initiated (Flint's
    /// `userInitiatedActions`); false for a background session's.
    public var userInitiated = true
    /// Success or failure.
    public var result: Result

    /// Creates an outcome.
    public init(requestID: String, action: String, session: String, worker: String, closeActionStack: Bool, result: Result) {
        self.requestID = requestID
        self.action = action
        self.session = session
        self.worker = worker
        self.closeActionStack = closeActionStack
        self.result = result
    }

    /// A failure decided by the bus itself (unknown action, overloaded, timed out...).
    public static func failure(for request: WireRequest, code: String, message: String, worker: String = "") -> WireOutcome {
        var outcome = WireOutcome(
            requestID: request.requestID, action: request.action, session: request.session,
            worker: worker, closeActionStack: false, result: .failure(code: code, message: message)
        )
        outcome.userInitiated = request.userInitiated
        return outcome
    }

    /// Whether the result is a success.
    public var isSuccess: Bool {
        if case .success = result { return true }
        return false
    }

    /// About how many bytes the outcome takes on the wire (its variable fields).
    public var byteCount: Int {
        let resultBytes: Int
        switch result {
        case .success(let contentType, let output): resultBytes = contentType.utf8.count + output.count
        case .failure(let code, let message): resultBytes = code.utf8.count + message.utf8.count
        }
        return requestID.utf8.count + action.utf8.count + session.utf8.count + worker.utf8.count + resultBytes
    }

    /// The feature part of the action name.
    public var feature: Substring { OutcomeTopic.split(action).feature }

    static let frameCount = 7

    /// The status flag bits this version defines.
    static let knownFlags: UInt8 = 0b111

    /// The status frame's flags byte.
    var statusFlags: UInt8 {
        (closeActionStack ? 1 : 0) | (nested ? 2 : 0) | (userInitiated ? 0 : 4)
    }

    /// Appends the outcome's fields, one frame each, without a command header (as they follow
    /// the header on the wire; the coordinator's journal stores them the same way).
    public func encode<Writer: WireFrameWriter>(into writer: inout Writer) {
        writer.append(requestID)
        writer.append(action)
        writer.append(session)
        writer.append(worker)
        switch result {
        case .success(let contentType, let output):
            writer.append([0, statusFlags])
            writer.append(contentType)
            writer.append(output)
        case .failure(let code, let message):
            writer.append([1, statusFlags])
            writer.append(code)
            writer.append(message)
        }
    }

    /// Decodes the outcome's fields from `frames` starting at `start` (no header), checking
    /// every field as the wire codec does and that no frame is left over.
    public static func decode<Frames: WireFrames>(
        fields frames: Frames, at start: Int = 0, limits: WireLimits = WireLimits()
    ) throws(WireError) -> WireOutcome {
        var reader = FrameReader(frames, at: start, limits: limits, command: .outcome)
        let decoded = try WireOutcome(reading: &reader)
        try reader.end()
        return decoded
    }

    init<Frames>(reading reader: inout FrameReader<Frames>) throws(WireError) {
        requestID = try reader.name("request id")
        action = try reader.name("action")
        session = try reader.name("session", allowEmpty: true)
        worker = try reader.name("worker", allowEmpty: true)
        let status = try reader.fixed("status", size: 2)
        let kind = status[status.startIndex], flags = status[status.startIndex + 1]
        guard flags & ~Self.knownFlags == 0 else {
            throw WireError(.invalidField, "status flags 0x\(String(flags, radix: 16)) has unknown bits")
        }
        closeActionStack = flags & 1 != 0
        nested = flags & 2 != 0
        userInitiated = flags & 4 == 0
        switch kind {
        case 0:
            let contentType = try reader.contentType()
            result = .success(contentType: contentType, output: Array(try reader.body("output")))
        case 1:
            let code = try reader.name("error code")
            result = .failure(code: code, message: try reader.text("error message"))
        default:
            throw WireError(.invalidField, "status \(kind) is neither success (0) nor failure (1)")
        }
    }
}
