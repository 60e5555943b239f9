/// One message between a leader and a standby: a fixed header frame, and for a snapshot or an
/// append a second frame with the journal bytes, exactly as the leader's journal holds them.
///
/// Header frame (30 bytes, integers big-endian): `"ABRP"`, version (u8, 1), kind (u8), epoch
/// (u64), stream (u64), sequence (u64). See PROTOCOL.md, "Replication".
package struct ReplicationMessage: Equatable, Sendable {
    package enum Kind: UInt8, Sendable {
        /// Leader → standby: the leader's whole journal file; the standby's file becomes it.
        case snapshot = 1
        /// Leader → standby: the records of one group commit, to append after `sequence - 1`.
        case append = 2
        /// Standby → leader: everything up to `sequence` of `stream` is written and synced.
        case acknowledged = 3
        /// Standby → leader: it cannot apply what it got (a new leader, a gap): send a snapshot.
        case resync = 4
        /// Standby → leader: the message carried an epoch lower than `epoch`, which it has seen.
        case staleEpoch = 5
        /// Leader → standby: "where are you?", sent while an acknowledgement is overdue, with the
        /// last sequence sent: a standby that holds it acknowledges again, one that does not (a
        /// restart, messages lost with a connection) asks for a snapshot.
        case probe = 6
        /// Leader → standby: the leader's whole journal, given as what follows the part the
        /// standby holds. The payload is that part's ``JournalPrefix`` (12 bytes), then the
        /// bytes after it. A standby whose file is exactly that part appends the rest and has
        /// the leader's file; any other asks for a snapshot.
        case tail = 7
        /// Standby → leader, right before each `resync`: the standby's file as a
        /// ``JournalPrefix`` (the payload), so the leader may send a `tail` instead of a
        /// snapshot. A leader that does not know it ignores it and sends a snapshot.
        case held = 8
        /// Leader → standby, as a leader stops (its last commit sent before it): it is giving
        /// up the leader key, so a standby may read the key at once rather than at its next
        /// poll, and a successor takes over sooner. No answer.
        case steppingDown = 9
    }

    package static let magic: [UInt8] = Array("ABRP".utf8)
    package static let version: UInt8 = 1
    package static let headerBytes = 30

    package var kind: Kind
    /// The leader's epoch (0 until an election assigns them); a standby refuses a lower one.
    package var epoch: UInt64
    /// Names one run of a leader: sequences count from 0 within it.
    package var stream: UInt64
    /// The commit's number in the stream (a snapshot's: the last commit it holds).
    package var sequence: UInt64
    /// The journal bytes of a snapshot or an append; empty for the others.
    package var payload: [UInt8]

    package init(_ kind: Kind, epoch: UInt64, stream: UInt64, sequence: UInt64, payload: [UInt8] = []) {
        self.kind = kind
        self.epoch = epoch
        self.stream = stream
        self.sequence = sequence
        self.payload = payload
    }

    /// Whether a payload frame follows the header.
    package var carriesJournal: Bool { Self.carriesPayload(kind) }

    private static func carriesPayload(_ kind: Kind) -> Bool {
        switch kind {
        case .snapshot, .append, .tail, .held: true
        case .acknowledged, .resync, .staleEpoch, .probe, .steppingDown: false
        }
    }

    /// A `tail`'s parts: what the standby must hold, and what follows it.
    package var tailParts: (held: JournalPrefix, rest: ArraySlice<UInt8>)? {
        guard kind == .tail, let held = JournalPrefix(decoding: payload) else { return nil }
        return (held, payload[JournalPrefix.encodedBytes...])
    }

    /// The header frame.
    package var header: [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerBytes)
        bytes.append(Self.version)
        bytes.append(kind.rawValue)
        for value in [epoch, stream, sequence] {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// Reads a message from its frames, or says what is wrong with it.
    package static func decode(header: some Collection<UInt8>, payload: [UInt8]?) throws(ReplicationMessageError) -> ReplicationMessage {
        let bytes = Array(header)
        guard bytes.count == headerBytes, Array(bytes[0..<4]) == magic else { throw .notReplication }
        guard bytes[4] == version else { throw .unsupportedVersion(bytes[4]) }
        guard let kind = Kind(rawValue: bytes[5]) else { throw .unknownKind(bytes[5]) }
        func number(at offset: Int) -> UInt64 {
            bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let message = ReplicationMessage(kind, epoch: number(at: 6), stream: number(at: 14), sequence: number(at: 22), payload: payload ?? [])
        guard message.carriesJournal == (payload != nil) else { throw .payloadMismatch }
        switch kind {
        case .tail: guard message.payload.count >= JournalPrefix.encodedBytes else { throw .payloadMismatch }
        case .held: guard message.payload.count == JournalPrefix.encodedBytes else { throw .payloadMismatch }
        default: break
        }
        return message
    }
}

/// Why frames are not a ``ReplicationMessage``.
package enum ReplicationMessageError: Error, Equatable, Sendable {
    /// Not 30 bytes, or not starting with `ABRP`.
    case notReplication
    case unsupportedVersion(UInt8)
    case unknownKind(UInt8)
    /// A snapshot, append, tail or held without its payload (or a tail or held one of the wrong
    /// size), or another kind with one.
    case payloadMismatch
}
