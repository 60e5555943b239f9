import ActionJournal
import ActionTransport
import Foundation
import Logging
import ZeroMQ

/// The standby's I/O loop side: reads the leader's messages, applies them to the journal
/// under ``ReplicaPosition``'s rules, and acknowledges once they are synced.
///
/// Every append read in one turn is committed together (one `fdatasync`) before the one
/// acknowledgement of the turn: the standby's own group commit, so a standby slower than its
/// leader catches up by writing more per sync, not by falling further behind.
final class StandbyDriver: IOLoopDriver {
    /// Messages read before the loop turns.
    private static let batchSize = 256
    /// How long the standby waits for the snapshot it asked for before asking again (the
    /// request, or the leader, may have been lost).
    private static let resyncRetry: Duration = .seconds(1)

    let endpoint: String
    private let socket: Socket
    private let journal: RequestJournal
    private let epochFile: String
    private let logger: Logger
    private let onFatalError: @Sendable (any Error) -> Void
    private let onLeaderSteppingDown: @Sendable () -> Void
    private var position: ReplicaPosition
    private var incoming = Multipart()
    private var resyncAskedAt: ContinuousClock.Instant?
    private var failed = false

    init(
        runtime: IOLoopRuntime, listen: String, dataDirectory: String, curve: CurveServerKeys?, logger: Logger,
        onFatalError: @escaping @Sendable (any Error) -> Void, onLeaderSteppingDown: @escaping @Sendable () -> Void
    ) throws {
        self.logger = logger
        self.onFatalError = onFatalError
        self.onLeaderSteppingDown = onLeaderSteppingDown
        // The leader decides when to compact: the standby only copies what it sends.
        journal = try RequestJournal(directory: dataDirectory, compactionBytes: .max / 2)
        journal.releaseRecovery()
        epochFile = (dataDirectory as NSString).appendingPathComponent("EPOCH")
        position = ReplicaPosition(epoch: Self.readEpoch(epochFile))
        do {
            socket = try runtime.makeSocket(.router)
            try socket.setOption(.receiveHighWaterMark, 0)
            // Only a leader holding the coordinator key, over an encrypted link.
            try curve?.apply(to: socket, domain: CurveServerKeys.Domain.replication)
            try socket.bind(listen)
            endpoint = try socket.lastEndpoint
        } catch {
            journal.close()
            throw error
        }
        runtime.register(socket) { [unowned self] _ in readBatch() }
    }

    func ioLoopWillStop(_ runtime: IOLoopRuntime) {
        journal.close()
    }

    private func readBatch() {
        guard !failed else { return }
        var leader: [UInt8]?
        var mustAcknowledge = false
        for _ in 0..<Self.batchSize {
            do {
                try socket.receive(into: &incoming, options: .dontWait)
            } catch {
                break
            }
            guard incoming.count == 2 || incoming.count == 3 else { continue }
            let message: ReplicationMessage
            do {
                message = try ReplicationMessage.decode(header: incoming[1], payload: incoming.count == 3 ? Array(incoming[2]) : nil)
            } catch {
                logger.warning("replication message that does not decode, ignored", metadata: ["replication.error": "\(error)"])
                continue
            }
            let sender = Array(incoming[0])
            let epochBefore = position.epoch
            switch position.decide(message) {
            case .install where message.kind == .tail:
                guard let parts = message.tailParts, holds(parts.held) else {
                    // Not the file the tail follows (it changed, or the leader misjudged): the
                    // whole journal, asked for without saying what is held.
                    resyncAskedAt = .now
                    reply(.resync, to: sender)
                    logger.notice("standby's journal is not what the leader's tail follows; asked for the whole journal", metadata: [
                        "replication.stream": "\(message.stream)", "replication.sequence": "\(message.sequence)",
                    ])
                    break
                }
                journal.appendEncoded(Array(parts.rest))
                position.applied(message)
                resyncAskedAt = nil
                mustAcknowledge = true
                logger.info("standby took the rest of the leader's journal", metadata: [
                    "replication.stream": "\(message.stream)", "replication.sequence": "\(message.sequence)",
                    "replication.catchUp": "tail", "journal.bytes": "\(parts.rest.count)", "journal.held": "\(parts.held.length)",
                ])
            case .install:
                do throws(JournalError) {
                    try journal.replaceFile(with: message.payload)
                } catch {
                    return fail(error)
                }
                position.applied(message)
                resyncAskedAt = nil
                mustAcknowledge = true
                logger.info("standby took the leader's journal whole", metadata: [
                    "replication.stream": "\(message.stream)", "replication.sequence": "\(message.sequence)",
                    "replication.catchUp": "whole", "journal.bytes": "\(message.payload.count)",
                ])
            case .append:
                journal.appendEncoded(message.payload)
                position.applied(message)
                mustAcknowledge = true
            case .alreadyHave:
                mustAcknowledge = true
            case .resync:
                let now = ContinuousClock.now
                // A probe is paced by the leader; appends that follow a gap come by the thousand.
                if message.kind == .probe || resyncAskedAt.map({ now - $0 >= Self.resyncRetry }) ?? true {
                    resyncAskedAt = now
                    // What it holds first: a leader whose file starts with it sends only the rest.
                    if let held = heldPrefix() { reply(.held, payload: held.encoded, to: sender) }
                    reply(.resync, to: sender)
                    logger.notice("standby asked the leader for its whole journal", metadata: [
                        "replication.stream": "\(message.stream)", "replication.sequence": "\(message.sequence)",
                        "replication.position": "\(position.sequence)",
                    ])
                }
            case .staleEpoch:
                reply(.staleEpoch, to: sender)
                logger.warning("replication message from an older epoch refused", metadata: [
                    "replication.epoch": "\(message.epoch)", "replication.seenEpoch": "\(position.epoch)",
                ])
            case .leaderSteppingDown:
                logger.info("the leader is stepping down", metadata: [
                    "replication.stream": "\(message.stream)", "replication.position": "\(position.sequence)",
                ])
                onLeaderSteppingDown()
            case .ignore:
                break
            }
            if position.epoch > epochBefore { saveEpoch() }
            leader = sender
        }
        guard mustAcknowledge, let leader else { return }
        do throws(JournalError) {
            try journal.commit()
        } catch {
            return fail(error)
        }
        reply(.acknowledged, to: leader)
    }

    private func reply(_ kind: ReplicationMessage.Kind, payload: [UInt8]? = nil, to leader: [UInt8]) {
        let message = ReplicationMessage(kind, epoch: position.epoch, stream: position.stream ?? 0, sequence: position.sequence)
        // A leader gone since it sent is no error here: it will send again when it is back.
        try? socket.send(Multipart([leader, message.header] + (payload.map { [$0] } ?? [])), options: .dontWait)
    }

    /// The committed journal as a ``JournalPrefix``; `nil` when it cannot be read (the leader
    /// then sends it whole).
    private func heldPrefix() -> JournalPrefix? {
        do throws(JournalError) {
            try journal.commit()
            return JournalPrefix(of: try journal.committedFileBytes())
        } catch {
            logger.warning("cannot read the standby's journal to tell the leader what it holds", metadata: ["journal.error": "\(error)"])
            return nil
        }
    }

    /// Whether the committed journal is exactly `held`: what a tail follows.
    private func holds(_ held: JournalPrefix) -> Bool {
        heldPrefix() == held
    }

    private func fail(_ error: JournalError) {
        failed = true
        logger.critical("standby journal write failed: it acknowledges nothing more and stops", metadata: ["journal.error": "\(error)"])
        onFatalError(error)
    }

    // MARK: The epoch seen

    private static func readEpoch(_ path: String) -> UInt64 {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        return UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Keeps the highest epoch across restarts, written before anything of that epoch is
    /// acknowledged (beside, synced, renamed), so a restarted standby still refuses older ones.
    private func saveEpoch() {
        do throws(JournalError) {
            try RequestJournal.replaceAtomically(epochFile, with: Array("\(position.epoch)\n".utf8))
        } catch {
            fail(error)
        }
    }
}
