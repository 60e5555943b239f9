import ActionCore
import ActionWire

/// An accepted request: unfinished (queued or running), or finished and holding the outcome
/// its client has yet to acknowledge (owed).
///
/// One allocation per request: the small fields sit in the buffer's header, and the request's
/// bytes (id, action, session, content type unless it is JSON, input) follow it in the same
/// block. A million queued requests are a million of these, so what each costs is what the
/// queue costs: a request held as a ``WireRequest`` was three allocations (the object, a
/// request id of 16 bytes or more, the input) and about 130 bytes more.
///
/// A class, changed in place (placement, deliveries, client) several times in its life.
final class PendingRequest: ManagedBuffer<PendingRequest.Fields, UInt8>, IDKeyed {
    enum Placement: Equatable {
        case queued
        case running(on: WorkerID)
    }

    /// The request's small fields, ordered so that a million of them do not each pay for padding.
    struct Fields {
        /// The client that first sent it, and the share of the queue it counts against (its
        /// connection's). `nil` for a request recovered from the journal, which counts against
        /// no one's share.
        let sender: RequestSender?
        /// Where a retry from another connection moved the answer to while it is unfinished,
        /// or, once finished, the outcome it owes its client until the ACK: never both, so
        /// they share one field (8 bytes for every queued request).
        var answer: Answer?
        /// Acceptance order: requests requeued from a dead worker go back to the head of the
        /// queue, among themselves in the order they were accepted.
        let order: UInt64
        /// The deadline, in nanoseconds after ``ClockOffset/epoch``: half an `Instant`.
        let deadlineOffset: Int64
        /// Not counted: the wheel owns its buckets, and clears this before it lets one go.
        var wheelBucket: Unmanaged<DeadlineWheel.Bucket>?
        var placement: Placement = .queued
        var wheelIndex: Int32 = 0
        var deliveryCount: Int32 = 0
        let timeoutMilliseconds: UInt32
        /// The ``RequestTable`` tag of its id, computed once: the tables it goes in and out of
        /// (the request table, a worker's in-flight set) need not hash the id again.
        let idTag: UInt32
        // Lengths of the fields in the tail, in this order; content type 0 means JSON.
        let idCount: UInt16
        let actionCount: UInt16
        let sessionCount: UInt16
        let contentTypeCount: UInt16
        let inputCount: UInt32
        var recovered = false
        var isFinished = false
        /// Flint's `userInitiatedActions`, as the request said (its flags field).
        let userInitiated: Bool
    }

    enum Answer {
        /// A retry from another connection moved the answer there. Rare, so kept out of line:
        /// an address inline costs every queued request about 50 bytes.
        case moved(MovedClient)
        /// Finished: the outcome is owed to its client, and the request stays in the request
        /// table, where a resend finds the outcome, until the client acknowledges it.
        case owed(WireOutcome)
    }

    final class MovedClient {
        let address: ClientAddress
        init(_ address: ClientAddress) { self.address = address }
    }

    /// The longest name a pending request holds (its lengths are 16-bit); the wire's own limit
    /// (``WireLimits/maxNameBytes``, 255) is far below it.
    static let maxNameBytes = Int(UInt16.max)

    /// The largest input a pending request holds (its length is 32-bit); messages are far smaller.
    static let maxInputBytes = Int(UInt32.max)

    /// Whether `request` fits: its names at most ``maxNameBytes`` long, its content type not
    /// empty (a stored length of 0 means JSON), its input (`input` when given, else its own) at
    /// most ``maxInputBytes``. Anything the wire codec decodes does.
    static func fits(_ request: WireRequest, input: ArraySlice<UInt8>? = nil) -> Bool {
        !request.contentType.isEmpty
            && request.requestID.utf8.count <= maxNameBytes && request.action.utf8.count <= maxNameBytes
            && request.session.utf8.count <= maxNameBytes && request.contentType.utf8.count <= maxNameBytes
            && (input?.count ?? request.input.count) <= maxInputBytes
    }

    /// Packs `request`, which must fit (``fits(_:input:)``), with `input` when given (the input
    /// as a decode left it in its message), else its own.
    /// `idTag` is ``IDTable/tag(of:)`` of its id, when the caller has it already.
    static func make(
        _ request: WireRequest, input: ArraySlice<UInt8>? = nil, sender: RequestSender?, order: UInt64,
        deadline: ContinuousClock.Instant, idTag: UInt32? = nil
    ) -> PendingRequest {
        make(request, input: input, sender: sender, order: order, deadlineOffset: ClockOffset.of(deadline), idTag: idTag)
    }

    /// ``make(_:input:sender:order:deadline:idTag:)`` with the deadline as a ``ClockOffset``.
    static func make(
        _ request: WireRequest, input: ArraySlice<UInt8>? = nil, sender: RequestSender?, order: UInt64,
        deadlineOffset: Int64, idTag: UInt32? = nil
    ) -> PendingRequest {
        let input = input ?? request.input[...]
        let contentType = request.contentType == WireRequest.json ? 0 : request.contentType.utf8.count
        let idCount = request.requestID.utf8.count, actionCount = request.action.utf8.count
        let sessionCount = request.session.utf8.count
        let tail = idCount + actionCount + sessionCount + contentType + input.count
        // The fields made inside the closure go straight into the header; made outside, they
        // were copied in and the local destroyed (a retain and a release of the sender).
        let made = create(minimumCapacity: tail) { _ in
            Fields(
                sender: sender, order: order, deadlineOffset: deadlineOffset,
                timeoutMilliseconds: request.timeoutMilliseconds,
                idTag: idTag ?? RequestTable.tag(of: request.requestID),
                idCount: UInt16(idCount), actionCount: UInt16(actionCount),
                sessionCount: UInt16(sessionCount), contentTypeCount: UInt16(contentType),
                inputCount: UInt32(input.count), userInitiated: request.userInitiated
            )
        }
        let pending = unsafeDowncast(made, to: PendingRequest.self)
        pending.withUnsafeMutablePointerToElements { start in
            // A cursor of its own, not a captured local: a closure capturing a mutable local
            // boxes it, and each access to the box is checked for exclusivity at run time.
            var cursor = ByteCursor(start)
            cursor.copy(request.requestID.utf8)
            cursor.copy(request.action.utf8)
            cursor.copy(request.session.utf8)
            if contentType > 0 { cursor.copy(request.contentType.utf8) }
            cursor.copy(input)
        }
        return pending
    }

    /// Runs `body` on the fields in place. Not through `header`: a class's stored property,
    /// each access to it is checked for exclusivity at run time, a dozen times a request on the
    /// coordinator's hot path.
    @inline(__always)
    private func withFields<Result>(_ body: (inout Fields) -> Result) -> Result {
        withUnsafeMutablePointerToHeader { body(&$0.pointee) }
    }

    // MARK: The request's bytes

    /// Calls `body` with the bytes of field `index` (0 id, 1 action, 2 session, 3 content type,
    /// 4 input); the buffer is valid only inside `body`.
    private func withField<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { fields, start in
            var offset = 0
            var count = fields.pointee.idCount.int
            if index >= 1 { offset += count; count = fields.pointee.actionCount.int }
            if index >= 2 { offset += count; count = fields.pointee.sessionCount.int }
            if index >= 3 { offset += count; count = fields.pointee.contentTypeCount.int }
            if index >= 4 { offset += count; count = Int(fields.pointee.inputCount) }
            return try body(UnsafeRawBufferPointer(start: start + offset, count: count))
        }
    }

    /// The ``RequestTable`` tag of its id.
    var idTag: UInt32 { withFields { $0.idTag } }

    /// Whether the request id is `bytes`.
    func hasID(_ bytes: UnsafeRawBufferPointer) -> Bool {
        withFields { $0.idCount.int } == bytes.count && withIDBytes { $0.elementsEqual(bytes) }
    }

    /// Calls `body` with the request id's bytes.
    func withIDBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { fields, start in
            try body(UnsafeRawBufferPointer(start: start, count: fields.pointee.idCount.int))
        }
    }

    var requestID: String { withField(0) { String(decoding: $0, as: UTF8.self) } }
    var action: String { withField(1) { String(decoding: $0, as: UTF8.self) } }
    var session: String { withField(2) { String(decoding: $0, as: UTF8.self) } }
    var hasSession: Bool { withFields { $0.sessionCount } != 0 }
    var contentType: String {
        withFields { $0.contentTypeCount } == 0 ? WireRequest.json : withField(3) { String(decoding: $0, as: UTF8.self) }
    }
    var input: [UInt8] { withField(4) { Array($0) } }
    /// The input's digest (``InputDigest``), read in place.
    var inputDigest: UInt64 { withField(4) { InputDigest.of($0) } }

    /// The request as it came, with its timeout.
    var request: WireRequest {
        WireRequest(
            requestID: requestID, action: action, session: session,
            timeoutMilliseconds: timeoutMilliseconds, contentType: contentType, input: input,
            userInitiated: userInitiated
        )
    }

    /// The request as its wire record, with `timeoutMilliseconds` (the time it has left) in place
    /// of the timeout it came with: one allocation, the bytes copied as they are.
    func packed(timeoutMilliseconds: UInt32) -> PackedRequest {
        let total = packedCount
        let record = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            writePacked(into: buffer, timeoutMilliseconds: timeoutMilliseconds)
            initialized = total
        }
        return PackedRequest(record: record, fieldCount: WireRequest.frameCount + (userInitiated ? 0 : 1))
    }

    /// How many bytes its wire record takes (``packed(timeoutMilliseconds:)``).
    var packedCount: Int { recordLengths.total }

    /// The lengths of its record's fields, read in place (a copy of the whole header retains
    /// what it holds); a content type stored as 0 bytes is JSON's.
    private var recordLengths: (id: Int, action: Int, session: Int, storedContentType: Int, contentType: Int, input: Int,
                                userInitiated: Bool, total: Int) {
        let (id, action, session, storedContentType, input, userInitiated) = withFields {
            ($0.idCount.int, $0.actionCount.int, $0.sessionCount.int, $0.contentTypeCount.int, Int($0.inputCount), $0.userInitiated)
        }
        let contentType = storedContentType == 0 ? WireRequest.json.utf8.count : storedContentType
        let total = 24 + id + action + session + 4 + contentType + input + (userInitiated ? 0 : 5)
        return (id, action, session, storedContentType, contentType, input, userInitiated, total)
    }

    /// Writes its wire record (``packed(timeoutMilliseconds:)``) into `buffer`, which must hold
    /// exactly ``packedCount`` bytes: a message's buffer, say, so that the record is made nowhere else.
    func writePacked(into buffer: UnsafeMutableBufferPointer<UInt8>, timeoutMilliseconds: UInt32) {
        let lengths = recordLengths
        precondition(buffer.count == lengths.total, "a pending request's record fills its buffer exactly")
        withUnsafeMutablePointerToElements { start in
            var source = UnsafePointer(start)
            var cursor = ByteCursor(buffer.baseAddress!)
            cursor.copyField(from: &source, count: lengths.id)
            cursor.copyField(from: &source, count: lengths.action)
            cursor.copyField(from: &source, count: lengths.session)
            cursor.storeLength(4)
            cursor.storeLength(Int(timeoutMilliseconds))
            if lengths.storedContentType == 0 {
                cursor.storeLength(lengths.contentType)
                cursor.copy(WireRequest.json.utf8)
            } else {
                cursor.copyField(from: &source, count: lengths.contentType)
            }
            cursor.copyField(from: &source, count: lengths.input)
            if !lengths.userInitiated {
                cursor.storeLength(1)
                cursor.copy(CollectionOfOne(WireRequest.notUserInitiatedFlags))
            }
            assert(cursor.next - buffer.baseAddress! == lengths.total)
        }
    }

    /// Its lane: its session's, or without a session its action's.
    var lane: Lane { hasSession ? .session(session) : .action(action) }

    // MARK: State

    /// The client to answer: its first sender, until a retry arrives from another connection.
    /// `nil` for a request recovered from the journal until its client sends it again.
    var client: ClientAddress? {
        get {
            let moved: ClientAddress? = withFields { if case .moved(let moved)? = $0.answer { moved.address } else { nil } }
            return moved ?? firstSender
        }
        set {
            assert(!isFinished, "only an unfinished request's answer moves")
            let moved = newValue == firstSender ? nil : newValue.map(MovedClient.init)
            withFields { $0.answer = moved.map(Answer.moved) }
        }
    }
    var sender: RequestSender? { withFields { $0.sender } }
    /// The client that first sent it: only it (see ``ClientAddress/mayActOn(requestID:firstSentBy:)``)
    /// may cancel it or take its outcome.
    var firstSender: ClientAddress? { withFields { $0.sender?.address } }
    var order: UInt64 { withFields { $0.order } }
    var userInitiated: Bool { withFields { $0.userInitiated } }
    /// The timeout it came with (0: the coordinator's default).
    var timeoutMilliseconds: UInt32 { withFields { $0.timeoutMilliseconds } }
    var deadline: ContinuousClock.Instant { ClockOffset.instant(deadlineOffset) }
    /// The deadline as ``ClockOffset`` holds instants.
    var deadlineOffset: Int64 { withFields { $0.deadlineOffset } }
    var placement: Placement {
        get { withFields { $0.placement } }
        set { withFields { $0.placement = newValue } }
    }
    /// Recovered from the journal after a restart: a worker may still be running it from before.
    var recovered: Bool {
        get { withFields { $0.recovered } }
        set { withFields { $0.recovered = newValue } }
    }
    /// Answered: a lane entry still pointing at it is stale. A finished request is out of the
    /// request table unless its outcome is owed (``owedOutcome``).
    var isFinished: Bool {
        get { withFields { $0.isFinished } }
        set { withFields { $0.isFinished = newValue } }
    }
    /// Its outcome while it is owed to its client (finished, in the request table until the
    /// client acknowledges it); `nil` otherwise.
    var owedOutcome: WireOutcome? {
        get { withFields { if case .owed(let outcome)? = $0.answer { outcome } else { nil } } }
        set { withFields { $0.answer = newValue.map(Answer.owed) } }
    }
    /// What a resend or a cancel of its id is answered with while its outcome is owed, and what
    /// the outcome keeps of it once recent.
    var origin: OutcomeOrigin { OutcomeOrigin(inputDigest: inputDigest, sender: sender) }
    /// How many times it was sent to a worker (counting back the sends that never left).
    var deliveries: Int {
        get { Int(withFields { $0.deliveryCount }) }
        set { withFields { $0.deliveryCount = Int32(clamping: newValue) } }
    }
    /// Where its deadline sits in the ``DeadlineWheel``: the wheel's own bookkeeping.
    var wheelBucket: Unmanaged<DeadlineWheel.Bucket>? {
        get { withFields { $0.wheelBucket } }
        set { withFields { $0.wheelBucket = newValue } }
    }
    var wheelIndex: Int32 {
        get { withFields { $0.wheelIndex } }
        set { withFields { $0.wheelIndex = newValue } }
    }
}

private extension UInt16 {
    var int: Int { Int(self) }
}

/// Writes bytes one after another from `next` on; the caller sized the buffer.
private struct ByteCursor {
    private(set) var next: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { next = start }

    /// A field of the record: its length, then `count` bytes taken from `source` (which moves past them).
    mutating func copyField(from source: inout UnsafePointer<UInt8>, count: Int) {
        storeLength(count)
        next.initialize(from: source, count: count)
        next += count
        source += count
    }

    mutating func copy<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        let end = UnsafeMutableBufferPointer(start: next, count: bytes.count).initialize(fromContentsOf: bytes)
        next += end
    }

    /// A wire length (or the timeout, the same 4 bytes): big-endian `UInt32`.
    mutating func storeLength(_ length: Int) {
        UnsafeMutableRawPointer(next).storeBytes(of: UInt32(length).bigEndian, as: UInt32.self)
        next += 4
    }
}
