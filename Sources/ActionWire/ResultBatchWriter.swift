/// RESULT messages written as outcomes finish: each outcome goes as its packed record straight
/// into the message being filled, with no ``WireOutcome`` made of it, and a message is handed
/// on whole when the next record would take it past ``WireBatching``'s limits.
///
/// A worker finishes a hundred outcomes a turn of its loop. Made as values first and written
/// at the turn's end, each cost an allocation (the outcome's box), a retain and release of every
/// field, and a second pass over all of them.
package struct ResultBatchWriter: Sendable {
    /// The message being filled: a RESULT header and the records so far (none: no frames).
    package private(set) var message = PackedFrames()
    /// How many records the message holds.
    package private(set) var count = 0
    /// The records' variable bytes, as ``WireBatching`` counts them.
    private var bytes = 0

    package init() {}

    package var isEmpty: Bool { count == 0 }

    /// Appends the outcome of these values; when it would not fit in the message being filled,
    /// `sendFull` gets that message first, and this outcome starts the next. `sendFull` runs
    /// while the writer is being changed: it must send the message, not touch the writer.
    package mutating func append(
        requestID: String, action: String, session: String, worker: String,
        closeActionStack: Bool, nested: Bool = false, userInitiated: Bool, result: WireOutcome.Result,
        sendFull: (PackedFrames) -> Void
    ) {
        let size = WireOutcome.byteCount(requestID: requestID, action: action, session: session, worker: worker, result: result)
        startRecord(of: size, sendFull: sendFull)
        let flags = WireOutcome.statusFlags(closeActionStack: closeActionStack, nested: nested, userInitiated: userInitiated)
        message.appendRecord { writer in
            WireOutcome.encode(
                requestID: requestID, action: action, session: session, worker: worker, statusFlags: flags, result: result,
                into: &writer
            )
        }
    }

    /// Appends `outcome`, as ``append(requestID:action:session:worker:closeActionStack:nested:userInitiated:result:sendFull:)`` does.
    package mutating func append(_ outcome: WireOutcome, sendFull: (PackedFrames) -> Void) {
        startRecord(of: outcome.byteCount, sendFull: sendFull)
        message.appendRecord(outcome)
    }

    /// Makes room for a record of `size` variable bytes: the message so far goes to `sendFull`
    /// when the record would take it past the limits, and a new message starts with its header.
    private mutating func startRecord(of size: Int, sendFull: (PackedFrames) -> Void) {
        if WireBatching.isFull(count: count, bytes: bytes, adding: size) {
            sendFull(message)
            removeAll()
        }
        if count == 0 { message.append(WireHeader.bytes(.result)) }
        count += 1
        bytes += size
    }

    /// Empties the writer (after its message was sent), keeping its buffer's capacity.
    package mutating func removeAll() {
        message.removeAll()
        count = 0
        bytes = 0
    }
}
