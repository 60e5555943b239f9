/// Where a standby's journal stands in its leader's stream, and what it does with each message
/// that arrives: the standby's rules, apart from its files and sockets.
///
/// - A message with a lower epoch than the highest seen is refused (`staleEpoch`): a deposed
///   leader must not write to a standby that already follows a newer one.
/// - A snapshot is always installed: it replaces the whole file, so it needs no history. So is a
///   tail (the leader's file as what follows the standby's), once the standby's file is what it
///   follows.
/// - An append is applied only right after the last sequence of the same stream; one already
///   applied is acknowledged again; anything else (another stream: a new or restarted leader;
///   a gap: messages dropped on the way) asks for a snapshot.
/// - A probe is answered with the position when it holds the probe's sequence, and with a
///   request for a snapshot when it does not.
/// - A leader stepping down is heard only from the stream followed (the leader it copies).
package struct ReplicaPosition: Equatable, Sendable {
    /// What to do with a message.
    package enum Decision: Equatable, Sendable {
        /// Replace the journal with the snapshot, then acknowledge it.
        case install
        /// Append the records, sync, then acknowledge.
        case append
        /// Already written: acknowledge the position again.
        case alreadyHave
        /// Cannot be applied: ask the leader for a snapshot.
        case resync
        /// Refuse: the sender's epoch is older than one already seen.
        case staleEpoch
        /// The leader it follows is stepping down: look for its successor now.
        case leaderSteppingDown
        /// Not a message a standby takes (an acknowledgement sent the wrong way).
        case ignore
    }

    /// The highest epoch seen.
    package private(set) var epoch: UInt64
    /// The stream followed; `nil` until a snapshot arrives (after a start, the file on disk
    /// may be older than any leader's current stream).
    package private(set) var stream: UInt64?
    /// The last sequence of `stream` written and synced.
    package private(set) var sequence: UInt64 = 0

    /// A standby that has seen `epoch` (kept across its restarts) and follows no stream yet.
    package init(epoch: UInt64 = 0) {
        self.epoch = epoch
    }

    /// What to do with `message`; an epoch higher than any seen is remembered.
    package mutating func decide(_ message: ReplicationMessage) -> Decision {
        guard message.epoch >= epoch else { return .staleEpoch }
        epoch = message.epoch
        switch message.kind {
        case .snapshot, .tail:
            // A tail is a snapshot given as what follows the standby's file; the standby checks
            // that its file is what the tail follows.
            return .install
        case .append:
            guard stream == message.stream else { return .resync }
            if message.sequence == sequence + 1 { return .append }
            return message.sequence <= sequence ? .alreadyHave : .resync
        case .probe:
            // Sent after everything it counts, on the same connection: what is missing now was lost.
            return stream == message.stream && sequence >= message.sequence ? .alreadyHave : .resync
        case .steppingDown:
            return stream != nil && stream == message.stream ? .leaderSteppingDown : .ignore
        case .acknowledged, .resync, .staleEpoch, .held:
            return .ignore
        }
    }

    /// Records that `message` (installed or appended) is written and synced.
    package mutating func applied(_ message: ReplicationMessage) {
        if message.kind == .snapshot || message.kind == .tail { stream = message.stream }
        sequence = message.sequence
    }
}
