/// The answer to a REPLAY: outcomes the coordinator kept, each at its stream position, and
/// where its kept history stands.
///
/// Encoded as one frame: `oldest (u64) · head (u64) · next (u64)`, the coordinator's instance
/// (a 4-byte big-endian length and its bytes), then per outcome a 4-byte
/// big-endian length and the outcome as an EVENT's packed record whose `all` sequence is its
/// position (the other sequences are 0: they number a live subscription, not history).
package struct ReplayChunk: Sendable, Hashable {
    /// The oldest position the coordinator still keeps (`head + 1` when it keeps none).
    package var oldest: UInt64
    /// The last position published: a replay that reaches it has caught up with the stream.
    package var head: UInt64
    /// Where the next REPLAY of this filter starts: after the last outcome looked at (matching
    /// or not), so a filter that matches little still moves on.
    package var next: UInt64
    /// The matching outcomes from the asked position up to `next`, in position order.
    package var outcomes: [PositionedOutcome]
    /// The coordinator instance that answered (as SUBSCRIBED and PONG name it): a subscriber
    /// trusts a chunk only from the instance its live subscription hears.
    package var instance: String

    package init(oldest: UInt64, head: UInt64, next: UInt64, outcomes: [PositionedOutcome], instance: String) {
        self.instance = instance
        self.oldest = oldest
        self.head = head
        self.next = next
        self.outcomes = outcomes
    }

    /// Whether the replay has reached the stream's head.
    package var caughtUp: Bool { next > head }

    package var bytes: [UInt8] {
        var bytes = oldest.bigEndianBytes + head.bigEndianBytes + next.bigEndianBytes
        bytes.append(contentsOf: UInt32(instance.utf8.count).bigEndianBytes)
        bytes.append(contentsOf: instance.utf8)
        for outcome in outcomes {
            let packed = OutcomeEvent(sequences: OutcomeSequences([outcome.position, 0, 0, 0, 0, 0]), outcome: outcome.outcome).packed
            bytes.append(contentsOf: UInt32(packed.count).bigEndianBytes)
            bytes.append(contentsOf: packed)
        }
        return bytes
    }

    /// Reads a chunk.
    ///
    /// - Throws: ``WireError`` when the bytes are not a whole chunk.
    package init(bytes: [UInt8], limits: WireLimits = WireLimits()) throws(WireError) {
        let all = bytes[...]
        guard all.count >= 24 else { throw WireError(.truncated, "REPLAY-REPLY chunk has \(all.count) bytes, at least 24 expected") }
        oldest = all.bigEndianInteger(at: 0, as: UInt64.self)
        head = all.bigEndianInteger(at: 8, as: UInt64.self)
        next = all.bigEndianInteger(at: 16, as: UInt64.self)
        outcomes = []
        guard all.count >= 28 else { throw WireError(.truncated, "REPLAY-REPLY chunk ends before its instance") }
        let instanceLength = Int(all.bigEndianInteger(at: 24, as: UInt32.self))
        guard instanceLength <= limits.maxNameBytes, all.count - 28 >= instanceLength else {
            throw WireError(.truncated, "REPLAY-REPLY instance says \(instanceLength) bytes")
        }
        instance = String(decoding: all[28..<28 + instanceLength], as: UTF8.self)
        var offset = 28 + instanceLength
        while offset < all.count {
            guard all.count - offset >= 4 else { throw WireError(.truncated, "REPLAY-REPLY chunk ends inside a record length") }
            let length = Int(all.bigEndianInteger(at: offset, as: UInt32.self))
            offset += 4
            guard all.count - offset >= length else {
                throw WireError(.truncated, "REPLAY-REPLY record says \(length) bytes; \(all.count - offset) remain")
            }
            let event = try OutcomeEvent.unpack(all[offset..<offset + length], command: .replayReply, limits: limits)
            outcomes.append(PositionedOutcome(position: event.sequences[.all], outcome: event.outcome))
            offset += length
        }
    }
}

/// An outcome at its position in the outcome stream.
package struct PositionedOutcome: Sendable, Hashable {
    /// Its position: one more than the outcome published before it, kept across restarts and
    /// failovers (the journal records it).
    package var position: UInt64
    package var outcome: WireOutcome

    package init(position: UInt64, outcome: WireOutcome) {
        self.position = position
        self.outcome = outcome
    }
}
