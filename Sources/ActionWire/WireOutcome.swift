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

        /// Its variable fields' bytes: a content type and output, or a code and message.
        var byteCount: Int {
            switch self {
            case .success(let contentType, let output): contentType.utf8.count + output.count
            case .failure(let code, let message): code.utf8.count + message.utf8.count
            }
        }
    }

    /// The request this outcome answers.
    public var requestID: String {
        get { fields { $0.pointee.requestID } }
        set { change { $0.requestID = newValue } }
    }
    /// The full action name.
    public var action: String {
        get { fields { $0.pointee.action } }
        set { change { $0.action = newValue } }
    }
    /// The session the action ran in.
    public var session: String {
        get { fields { $0.pointee.session } }
        set { change { $0.session = newValue } }
    }
    /// The name of the worker that ran it; empty when the coordinator answered itself.
    public var worker: String {
        get { fields { $0.pointee.worker } }
        set { change { $0.worker = newValue } }
    }
    /// Whether this outcome closes the feature's action stack.
    public var closeActionStack: Bool {
        get { fields { $0.pointee.closeActionStack } }
        set { change { $0.closeActionStack = newValue } }
    }
    /// Whether an action performed this one on its worker (Flint's nested perform) rather than a
    /// client requesting it: it answers no request and returns no credit; its id is the
    /// worker's own (`<worker id>/<n>`). The coordinator records it in its stacks and publishes it.
    public var nested: Bool {
        get { fields { $0.pointee.nested } }
        set { change { $0.nested = newValue } }
    }
    /// Whether the session it ran in counts its actions as user-initiated (Flint's
    /// `userInitiatedActions`); false for a background session's.
    public var userInitiated: Bool {
        get { fields { $0.pointee.userInitiated } }
        set { change { $0.userInitiated = newValue } }
    }
    /// Success or failure.
    public var result: Result {
        get {
            guard let (contentType, output) = copiedForwardedOutput else { return fields { $0.pointee.storedResult } }
            return .success(contentType: contentType, output: output)
        }
        set {
            change { $0.storedResult = newValue }
        }
    }

    /// Every field in one box, copied on write: an outcome is copied at each step of its way
    /// through the coordinator (the kept outcome, the reply, its gathering, the stream), and a
    /// copy of the fields themselves retained each of its strings and arrays (a tenth of the
    /// coordinator's CPU); a copy of the box is one retain. A forwarded outcome's record lies in
    /// the same block, after the fields: one allocation where an array of its own was two.
    /// Unchecked: a `ManagedBuffer` is not `Sendable`; the box is written only through
    /// `change`, in a box of the outcome's own, so one that two outcomes share is never written.
    private nonisolated(unsafe) var storage: Storage

    private struct Fields {
        var requestID: String
        var action: String
        var session: String
        var worker: String
        var closeActionStack: Bool
        var nested: Bool
        var userInitiated: Bool
        /// The result; a forwarded success's output is empty here, since it lies in ``record``.
        var storedResult: Result
        /// How many bytes of the packed record the outcome was read from
        /// (``unpackForwarding(_:command:limits:)``) follow the fields in the box, while nothing
        /// in it has changed: the coordinator sends, journals and publishes these bytes as they
        /// came, not the fields encoded again. A change drops the record.
        var recordCount: Int? = nil
        /// Where a forwarded success's output lies in the record.
        var outputRange: Range<Int>? = nil
    }

    /// The fields (header) and a forwarded outcome's record (elements).
    private final class Storage: ManagedBuffer<Fields, UInt8> {
        /// A box of `fields`, with `record`'s bytes after them when given.
        static func make(_ fields: Fields, record: UnsafeRawBufferPointer? = nil) -> Storage {
            let made = create(minimumCapacity: record?.count ?? 0) { _ in fields }
            if let record, let base = record.baseAddress {
                made.withUnsafeMutablePointerToElements { $0.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: record.count) }
            }
            // `create` is declared on ManagedBuffer; the instance is of the subclass.
            return unsafeDowncast(made, to: Storage.self)
        }
    }

    /// Reads the fields in place. `ManagedBuffer.header` is a class's stored property, so each
    /// read of it through the property took a dynamic exclusivity check (about 1.5 % of the
    /// coordinator, which reads an outcome's fields several times on its way through).
    @inline(__always)
    private func fields<T>(_ read: (UnsafeMutablePointer<Fields>) -> T) -> T {
        storage.withUnsafeMutablePointerToHeader(read)
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// A copy of the packed record the outcome was read from, while nothing in it has changed
    /// (``withRecord(_:)`` reads it in place).
    var record: [UInt8]? { withRecord { Array($0) } }

    /// Calls `body` with the packed record the outcome was read from, while nothing in it has
    /// changed; `nil` when it has none.
    func withRecord<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard let count = fields({ $0.pointee.recordCount }) else { return nil }
        return try storage.withUnsafeMutablePointerToElements { try body(UnsafeRawBufferPointer(start: $0, count: count)) }
    }

    /// Creates an outcome.
    public init(
        requestID: String, action: String, session: String, worker: String, closeActionStack: Bool,
        nested: Bool = false, userInitiated: Bool = true, result: Result
    ) {
        storage = Storage.make(Fields(
            requestID: requestID, action: action, session: session, worker: worker, closeActionStack: closeActionStack,
            nested: nested, userInitiated: userInitiated, storedResult: result
        ))
    }

    /// Changes fields in a box of this outcome's own: the record it was read from no longer says
    /// what it says, so a forwarded output is copied out of it first, into a box without it.
    private mutating func change(_ body: (inout Fields) -> Void) {
        if fields({ $0.pointee.recordCount }) != nil {
            var copied = storage.header
            copied.storedResult = result
            copied.recordCount = nil
            copied.outputRange = nil
            storage = Storage.make(copied)
        } else if !isKnownUniquelyReferenced(&storage) {
            storage = Storage.make(storage.header)
        }
        body(&storage.header)
    }

    /// A forwarded success's content type and where its output lies in its record.
    private var forwardedOutput: (contentType: String, range: Range<Int>)? {
        guard fields({ $0.pointee.recordCount }) != nil, let outputRange = fields({ $0.pointee.outputRange }),
              case .success(let contentType, _) = fields({ $0.pointee.storedResult }) else { return nil }
        return (contentType, outputRange)
    }

    /// A forwarded success's content type and output, copied out of its record.
    private var copiedForwardedOutput: (contentType: String, output: [UInt8])? {
        guard let (contentType, range) = forwardedOutput else { return nil }
        return (contentType, withRecord { Array($0[range]) } ?? [])
    }

    public static func == (lhs: WireOutcome, rhs: WireOutcome) -> Bool {
        lhs.requestID == rhs.requestID && lhs.action == rhs.action && lhs.session == rhs.session
            && lhs.worker == rhs.worker && lhs.closeActionStack == rhs.closeActionStack && lhs.nested == rhs.nested
            && lhs.userInitiated == rhs.userInitiated && lhs.result == rhs.result
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(requestID)
        hasher.combine(action)
        hasher.combine(session)
        hasher.combine(worker)
        hasher.combine(closeActionStack)
        hasher.combine(nested)
        hasher.combine(userInitiated)
        hasher.combine(result)
    }

    /// A failure decided by the bus itself (unknown action, overloaded, timed out...).
    package static func failure(for request: WireRequest, code: String, message: String, worker: String = "") -> WireOutcome {
        WireOutcome(
            requestID: request.requestID, action: request.action, session: request.session, worker: worker,
            closeActionStack: false, userInitiated: request.userInitiated, result: .failure(code: code, message: message)
        )
    }

    /// Whether the result is a success.
    public var isSuccess: Bool {
        failureCode == nil
    }

    /// A success's content type and output; `nil` for a failure. A forwarded outcome's output
    /// is copied out of its record: ``withSuccessOutput(_:)`` reads it in place.
    public var successOutput: (contentType: String, output: ArraySlice<UInt8>)? {
        if let (contentType, output) = copiedForwardedOutput { return (contentType, output[...]) }
        guard case .success(let contentType, let output) = fields({ $0.pointee.storedResult }) else { return nil }
        return (contentType, output[...])
    }

    /// Calls `body` with a success's content type and output, read in place (a forwarded
    /// outcome's in its record); `nil`, without calling it, for a failure.
    package func withSuccessOutput<R>(_ body: (_ contentType: String, _ output: UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        if let (contentType, range) = forwardedOutput {
            return try withRecord { try body(contentType, UnsafeRawBufferPointer(rebasing: $0[range])) }
        }
        guard case .success(let contentType, let output) = fields({ $0.pointee.storedResult }) else { return nil }
        return try output.withUnsafeBytes { try body(contentType, $0) }
    }

    /// The error code of a failure; `nil` for a success.
    public var failureCode: String? {
        guard case .failure(let code, _) = fields({ $0.pointee.storedResult }) else { return nil }
        return code
    }

    /// About how many bytes the outcome takes on the wire (its variable fields).
    package var byteCount: Int {
        if let recordCount = fields({ $0.pointee.recordCount }) { return recordCount }
        return Self.byteCount(requestID: requestID, action: action, session: session, worker: worker, result: fields { $0.pointee.storedResult })
    }

    /// ``byteCount`` of an outcome made of these values.
    static func byteCount(requestID: String, action: String, session: String, worker: String, result: Result) -> Int {
        requestID.utf8.count + action.utf8.count + session.utf8.count + worker.utf8.count + result.byteCount
    }

    /// The feature part of the action name.
    package var feature: Substring { OutcomeTopic.split(action).feature }

    static let frameCount = 7

    /// The status flag bits this version defines.
    static let knownFlags: UInt8 = 0b111

    /// The status frame's flags byte.
    var statusFlags: UInt8 {
        Self.statusFlags(closeActionStack: closeActionStack, nested: nested, userInitiated: userInitiated)
    }

    /// Appends the outcome's fields, one frame each, without a command header (as they follow
    /// the header on the wire; the coordinator's journal stores them the same way).
    package func encode<Writer: WireFrameWriter>(into writer: inout Writer) {
        Self.encode(
            requestID: requestID, action: action, session: session, worker: worker,
            statusFlags: statusFlags, result: result, into: &writer
        )
    }

    /// The status frame's flags byte for these flags.
    static func statusFlags(closeActionStack: Bool, nested: Bool, userInitiated: Bool) -> UInt8 {
        (closeActionStack ? 1 : 0) | (nested ? 2 : 0) | (userInitiated ? 0 : 4)
    }

    /// Appends the fields of an outcome made of these values, as ``encode(into:)`` does for
    /// one: for a writer that has the values and need not make an outcome of them.
    static func encode<Writer: WireFrameWriter>(
        requestID: String, action: String, session: String, worker: String, statusFlags: UInt8, result: Result,
        into writer: inout Writer
    ) {
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
    package static func decode<Frames: WireFrames>(
        fields frames: Frames, at start: Int = 0, limits: WireLimits = WireLimits()
    ) throws(WireError) -> WireOutcome {
        var reader = FrameReader(frames, at: start, limits: limits, command: .outcome)
        let decoded = try WireOutcome(reading: &reader)
        try reader.end()
        return decoded
    }

    init<Frames>(reading reader: inout FrameReader<Frames>) throws(WireError) {
        var names = RepeatedNames()
        self = try Self.read(&reader, forwarding: nil, names: &names)
    }

    /// Reads the fields. `forwarding` is the packed record `reader` reads, when the outcome is
    /// to keep it (``unpackForwarding(_:command:limits:names:)``): its bytes go into the
    /// outcome's box, and a success's output is read from them there (the result's own output
    /// is empty).
    private static func read<Frames>(
        _ reader: inout FrameReader<Frames>, forwarding record: ArraySlice<UInt8>?, names: inout RepeatedNames
    ) throws(WireError) -> WireOutcome {
        let requestID = try reader.name("request id")
        let action = try reader.name("action", remembering: &names.action)
        let session = try reader.name("session", allowEmpty: true, remembering: &names.session)
        let worker = try reader.name("worker", allowEmpty: true, remembering: &names.worker)
        let status = try reader.fixed("status", size: 2)
        let kind = status[status.startIndex], flags = status[status.startIndex + 1]
        guard flags & ~Self.knownFlags == 0 else {
            throw WireError(.invalidField, "status flags 0x\(String(flags, radix: 16)) has unknown bits")
        }
        let result: Result, outputRange: Range<Int>?
        switch kind {
        case 0:
            let contentType = try reader.contentType()
            let body = try reader.body("output")
            if let record {
                result = .success(contentType: contentType, output: [])
                outputRange = (body.startIndex - record.startIndex)..<(body.endIndex - record.startIndex)
            } else {
                result = .success(contentType: contentType, output: Array(body))
                outputRange = nil
            }
        case 1:
            let code = try reader.name("error code")
            result = .failure(code: code, message: try reader.text("error message"))
            outputRange = nil
        default:
            throw WireError(.invalidField, "status \(kind) is neither success (0) nor failure (1)")
        }
        var fields = Fields(
            requestID: requestID, action: action, session: session, worker: worker,
            closeActionStack: flags & 1 != 0, nested: flags & 2 != 0, userInitiated: flags & 4 == 0, storedResult: result
        )
        guard let record else { return WireOutcome(storage: Storage.make(fields)) }
        fields.recordCount = record.count
        fields.outputRange = outputRange
        return WireOutcome(storage: record.withUnsafeBytes { Storage.make(fields, record: $0) })
    }

    /// Decodes a packed outcome record that is to be sent on (a worker's RESULT, which the
    /// coordinator forwards as an OUTCOME): the outcome keeps the record's bytes, which are what
    /// it sends, stores and publishes, and reads its output from them.
    package static func unpackForwarding(
        _ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits
    ) throws(WireError) -> WireOutcome {
        var names = RepeatedNames()
        return try unpackForwarding(frame, command: command, limits: limits, names: &names)
    }

    /// ``unpack(_:command:limits:)`` for one of a message's records, in turn (a client reading
    /// an OUTCOME): an action, session or worker equal to the one `names` remembers from the
    /// record before is taken from it.
    package static func unpack(
        _ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits, names: inout RepeatedNames
    ) throws(WireError) -> WireOutcome {
        try PackedRecord.read(frame, command: command, limits: limits) { (reader) throws(WireError) in
            try read(&reader, forwarding: nil, names: &names)
        }
    }

    /// ``unpackForwarding(_:command:limits:)`` for one of a message's records, in turn: an
    /// action, session or worker equal to the one `names` remembers from the record before is
    /// taken from it.
    package static func unpackForwarding(
        _ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits, names: inout RepeatedNames
    ) throws(WireError) -> WireOutcome {
        try PackedRecord.read(frame, command: command, limits: limits) { (reader) throws(WireError) in
            try read(&reader, forwarding: frame, names: &names)
        }
    }
}
