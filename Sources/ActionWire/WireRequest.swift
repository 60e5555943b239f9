/// An action to perform, as it travels from client to coordinator (PERFORM) and from
/// coordinator to worker (REQUEST).
///
/// Frames: request id, action, session, timeout (u32 ms, big-endian; 0 means the receiver's
/// default), content type, input, and a seventh, flags (one byte; bit 0 = not user-initiated),
/// only when a flag is set.
package struct WireRequest: Sendable, Hashable {
    /// The request's identity: unique per client (client id + sequence, or an idempotency key).
    package var requestID: String
    /// The full action name, `Feature.action`.
    package var action: String
    /// The session the action runs in; empty for the worker's default session.
    package var session: String
    /// How long the request may take, in milliseconds; 0 for the receiver's default.
    package var timeoutMilliseconds: UInt32
    /// The input's content type, `application/json` by default.
    package var contentType: String
    /// The encoded input.
    package var input: [UInt8]
    /// Whether a user asked for it (Flint's `userInitiatedActions`): the worker's session and the
    /// coordinator's action stacks say so. False for work a program does on its own.
    package var userInitiated: Bool

    /// The content type of JSON payloads.
    package static let json = "application/json"
    /// ``json`` as bytes, to compare frames with.
    static let jsonBytes: [UInt8] = Array(json.utf8)

    /// A duration as the timeout frame carries it: whole milliseconds, rounded up so a deadline
    /// is never shortened, at least 1 (0 would mean "the default"), clamped to `UInt32`.
    package static func timeoutMilliseconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return UInt32(clamping: max(1, milliseconds))
    }

    /// ``timeoutMilliseconds(_:)`` of a duration in nanoseconds: integer arithmetic where a
    /// `Duration`'s is 128-bit, for a coordinator that sends one per request.
    package static func timeoutMilliseconds(nanoseconds: Int64) -> UInt32 {
        guard nanoseconds > 0 else { return 1 }
        let (milliseconds, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return UInt32(clamping: max(1, remainder > 0 ? milliseconds + 1 : milliseconds))
    }

    /// Creates a request.
    package init(
        requestID: String,
        action: String,
        session: String = "",
        timeoutMilliseconds: UInt32 = 0,
        contentType: String = WireRequest.json,
        input: [UInt8],
        userInitiated: Bool = true
    ) {
        self.userInitiated = userInitiated
        self.requestID = requestID
        self.action = action
        self.session = session
        self.timeoutMilliseconds = timeoutMilliseconds
        self.contentType = contentType
        self.input = input
    }

    /// How many fields (frames, or packed fields) a request has without its optional flags.
    package static let frameCount = 6

    /// The flags field's bit for a request that is not user-initiated.
    static let notUserInitiatedFlag: UInt8 = 1
    /// The flags field of a request that is not user-initiated (the only flag there is).
    package static let notUserInitiatedFlags: UInt8 = notUserInitiatedFlag

    /// Appends the request's fields, one frame each, without a command header (as they follow
    /// the header on the wire; the coordinator's journal stores them the same way).
    package func encode<Writer: WireFrameWriter>(into writer: inout Writer) {
        writer.append(requestID)
        writer.append(action)
        writer.append(session)
        withUnsafeBytes(of: timeoutMilliseconds.bigEndian) { writer.append($0) }
        writer.append(contentType)
        writer.append(input)
        if !userInitiated { writer.append(CollectionOfOne(Self.notUserInitiatedFlag)) }
    }

    /// Decodes the request's fields from `frames` starting at `start` (no header), checking
    /// every field as the wire codec does and that no frame is left over.
    package static func decode<Frames: WireFrames>(
        fields frames: Frames, at start: Int = 0, limits: WireLimits = WireLimits()
    ) throws(WireError) -> WireRequest {
        var reader = FrameReader(frames, at: start, limits: limits, command: .perform)
        let decoded = try WireRequest(reading: &reader)
        try reader.end()
        return decoded
    }

    init<Frames>(reading reader: inout FrameReader<Frames>) throws(WireError) {
        var names = RepeatedNames()
        let (request, input) = try Self.read(&reader, names: &names)
        self = request
        self.input = Array(input)
    }

    /// Reads the fields; the input is left in the frames (the request's own is empty) and
    /// returned beside them. An action or session equal to the one `names` remembers is taken
    /// from it.
    static func read<Frames>(
        _ reader: inout FrameReader<Frames>, names: inout RepeatedNames
    ) throws(WireError) -> (request: WireRequest, input: ArraySlice<UInt8>) {
        let requestID = try reader.name("request id")
        let action = try reader.name("action", remembering: &names.action) { (action) throws(WireError) in
            guard WireName.isActionName(action) else {
                throw WireError(.invalidField, "action name '\(action)' is not of the form Feature.action")
            }
        }
        let session = try reader.name("session", allowEmpty: true, remembering: &names.session)
        let timeoutMilliseconds = try reader.uint32("timeout")
        let contentType = try reader.contentType()
        let input = try reader.body("input")
        var userInitiated = true
        if reader.remaining > 0 {
            let flags = try reader.fixed("flags", size: 1)
            let value = flags[flags.startIndex]
            guard value & ~Self.notUserInitiatedFlag == 0 else {
                throw WireError(.invalidField, "request flags 0x\(String(value, radix: 16)) has unknown bits")
            }
            userInitiated = value & Self.notUserInitiatedFlag == 0
        }
        let request = WireRequest(
            requestID: requestID, action: action, session: session, timeoutMilliseconds: timeoutMilliseconds,
            contentType: contentType, input: [], userInitiated: userInitiated
        )
        return (request, input)
    }
}
