import ActionJournal
import Foundation
import Logging
import ZeroMQ

/// The leader's side of synchronous replication: sends each group commit's bytes to every
/// standby and tells the journal's thread when a commit may be released, which is once every
/// standby it must wait for has acknowledged it (written and synced).
///
/// The journal's thread calls ``replicate(_:)`` with the bytes its commit is about to write
/// (before its own `fdatasync`, so the standbys' syncs run during it), then
/// ``waitForAcknowledgements(through:catchUp:)`` after. Acknowledgements come in on the links'
/// own I/O thread, which alone owns the DEALER sockets. Acknowledgements are cumulative: one
/// per standby per group commit, whatever the number of requests in it.
///
/// Which standbys a commit waits for:
/// - by default, every configured one, for as long as it takes (safety: nothing is released
///   that a standby does not hold). One that falls behind by more than the timeout is marked
///   out of sync, which makes the coordinator refuse new requests `unavailable`, while what was
///   accepted keeps running and its replies wait for the standby to come back;
/// - with `standbyOptional`, only the in-sync ones: one that falls behind leaves the in-sync
///   set (logged as an error, with what is given up) and is sent the whole journal to catch up;
/// - in a group's term (``LeadershipTerm``), those recorded in sync in etcd, where only they
///   may win the next election: a standby is awaited from before it is recorded until after
///   it is recorded out, so nothing is released that an electable standby lacks. One that
///   falls behind is recorded out (the journal's thread waits for etcd), then sent the whole
///   journal; one that catches up is awaited at once and recorded in.
///
/// A standby (re)joins by the leader's whole journal at the current sequence, then appends after
/// it. When the leader starts it probes every standby; a standby that follows another stream
/// (every one, then), or saw a gap, answers `resync`, after a `held` that says how much of a
/// file it has and its checksum. A standby whose file is the start of the leader's is sent only
/// the rest (a `tail`): after a failover, or a standby's restart, that is what it lacks, not the
/// whole journal again. Any other, or one that says nothing of its file, is sent the whole file
/// (a snapshot).
final class StandbyReplication: @unchecked Sendable {
    private struct Member {
        let endpoint: String
        /// The highest sequence of this stream it acknowledged.
        var acknowledged: UInt64 = 0
        /// The sequence of the last whole journal sent to it; `nil` while it needs one.
        var snapshotSequence: UInt64?
        /// While it needs a whole journal: how to send it, once it has said what it holds.
        var catchUp = CatchUp.awaitingAnswer
        /// What its last `held` said it holds, for the `resync` that follows it.
        var held: JournalPrefix?
        var snapshotSentAt: ContinuousClock.Instant?
        var inSync = false
        /// Since when it owes an acknowledgement (`nil`: it has acknowledged all it was sent).
        var owingSince: ContinuousClock.Instant?
        /// When it was last asked where it is (a probe).
        var probedAt: ContinuousClock.Instant?
        /// In a group: whether the in-sync set in etcd may hold it (so commits wait for it).
        var electable = false
        /// In a group: being recorded out of the in-sync set.
        var leaving = false
    }

    /// How a standby that needs the whole journal is sent it.
    private enum CatchUp: Equatable {
        /// Probed; it has not answered with what it holds yet.
        case awaitingAnswer
        /// The whole file (a snapshot).
        case whole
        /// What follows the prefix it holds (a tail), when the leader's file starts with it.
        case after(JournalPrefix)
    }

    /// The epoch sent with every message: the term's, 0 outside a group.
    let epoch: UInt64
    /// The group's term, when this coordinator leads a group.
    private let term: LeadershipTerm?
    /// One recording of the in-sync set at a time, each of the set as it is then.
    private let recording = NSLock()
    private let recorder = DispatchQueue(label: "actionbus.replication.in-sync")
    /// Names this run of the leader; sequences count from 0 within it.
    let stream = UInt64.random(in: 1...UInt64.max)
    private let timeout: Duration
    private let standbyOptional: Bool
    private let logger: Logger
    private let onChange: @Sendable (ReplicationStatus) -> Void
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var members: [Member]
    private var acknowledgementLag: Duration = .zero
    private var shutdownDeadline: ContinuousClock.Instant?
    /// The last sequence sent: written by the journal's thread, under `condition`.
    private var sentSequence: UInt64 = 0
    private var links: IOLoop<StandbyLinks>!

    /// Connects to every standby in `endpoints` (under CURVE with the coordinator key, when `curve`).
    init(
        endpoints: [String], timeout: Duration, standbyOptional: Bool, term: LeadershipTerm?, curve: CurveServerKeys?, context: ZMQContext,
        logger: Logger, onChange: @escaping @Sendable (ReplicationStatus) -> Void
    ) throws {
        members = endpoints.map { Member(endpoint: $0) }
        self.term = term
        epoch = term?.epoch ?? 0
        self.timeout = timeout
        self.standbyOptional = standbyOptional
        self.logger = logger
        self.onChange = onChange
        links = try IOLoop(name: "coordinator-replication", context: context) { [unowned self] runtime in
            try StandbyLinks(runtime: runtime, endpoints: endpoints, keys: curve?.memberKeys) { index, message in
                self.received(message, from: index)
            }
        }
        // Each answers with what it holds (this stream is new to all of them), then is caught up.
        let now = ContinuousClock.now
        for index in members.indices { members[index].probedAt = now }
        let probe = ReplicationMessage(.probe, epoch: epoch, stream: stream, sequence: 0).header
        let everyone = Array(members.indices)
        links.execute { links, _ in links.send(header: probe, to: everyone) }
    }

    /// The in-sync set now.
    var status: ReplicationStatus {
        condition.withLock { statusLocked }
    }

    /// How long the last acknowledgement took, from the send it answered.
    var lastAcknowledgementLag: Duration {
        condition.withLock { acknowledgementLag }
    }

    private var statusLocked: ReplicationStatus {
        let required = term.map { min($0.minimumInSyncStandbys, members.count) } ?? (standbyOptional ? 0 : members.count)
        return ReplicationStatus(configured: members.count, inSync: members.count { $0.inSync && !$0.leaving }, required: required)
    }

    /// Whether a standby waits for the whole journal (asked by the coordinator's tick, which
    /// then has the journal's thread send it when no commit is under way to do so).
    var needsCatchUp: Bool {
        condition.withLock { members.contains(where: Self.waitsToBeSent) }
    }

    /// Whether a member needs the whole journal and has said what it holds.
    private static func waitsToBeSent(_ member: Member) -> Bool {
        member.snapshotSequence == nil && member.catchUp != .awaitingAnswer
    }

    // MARK: The journal's thread

    /// Sends one group commit's bytes to every standby that holds the journal (one that waits
    /// for a whole journal gets it instead) and returns the commit's sequence.
    func replicate(_ bytes: [UInt8]) -> UInt64 {
        send(.append, payload: bytes)
    }

    /// Sends a compaction's new file: the standbys replace theirs with it, in order with the
    /// appends around it.
    func replicateCompaction(_ bytes: [UInt8]) {
        send(.snapshot, payload: bytes)
    }

    /// Numbers the message and queues it for the links under one lock, so that every message
    /// (probes too) reaches the links in sequence order.
    @discardableResult
    private func send(_ kind: ReplicationMessage.Kind, payload: [UInt8]) -> UInt64 {
        let now = ContinuousClock.now
        return condition.withLock {
            sentSequence += 1
            let targets = members.indices.filter { index in
                guard members[index].snapshotSequence != nil else { return false }
                if members[index].owingSince == nil { members[index].owingSince = now }
                return true
            }
            if !targets.isEmpty {
                let header = ReplicationMessage(kind, epoch: epoch, stream: stream, sequence: sentSequence).header
                links.execute { links, _ in links.send(header: header, payload: payload, to: targets) }
            }
            return sentSequence
        }
    }

    /// Sends the whole committed journal, `catchUp()`, to every standby that needs it, at the
    /// last sequence sent (which it holds): the rest of it to one that holds its start, the whole
    /// file to the others. Journal's thread, between commits.
    func serveCatchUps(_ catchUp: () throws(JournalError) -> [UInt8]) {
        let needing = condition.withLock { members.indices.filter { Self.waitsToBeSent(members[$0]) } }
        guard !needing.isEmpty else { return }
        let bytes: [UInt8]
        do throws(JournalError) {
            bytes = try catchUp()
        } catch {
            logger.error("cannot read the journal to send a standby; trying again at the next commit", metadata: ["journal.error": "\(error)"])
            return
        }
        // Checked outside the lock: a checksum of the leader's file up to what each holds.
        let heldStarts = condition.withLock { needing.map { members[$0].catchUp } }.map { catchUp -> JournalPrefix? in
            guard case .after(let held) = catchUp, held.length > 0, held.begins(bytes) else { return nil }
            return held
        }
        let now = ContinuousClock.now
        let (sequence, endpoints) = condition.withLock {
            for (index, held) in zip(needing, heldStarts) {
                members[index].snapshotSequence = sentSequence
                members[index].snapshotSentAt = now
                if members[index].owingSince == nil { members[index].owingSince = now }
                if let held {
                    let header = ReplicationMessage(.tail, epoch: epoch, stream: stream, sequence: sentSequence).header
                    let payload = held.encoded + bytes[held.length...]
                    links.execute { links, _ in links.send(header: header, payload: payload, to: [index]) }
                }
            }
            let whole = zip(needing, heldStarts).filter { $0.1 == nil }.map(\.0)
            if !whole.isEmpty {
                let header = ReplicationMessage(.snapshot, epoch: epoch, stream: stream, sequence: sentSequence).header
                links.execute { links, _ in links.send(header: header, payload: bytes, to: whole) }
            }
            return (sentSequence, needing.map { members[$0].endpoint })
        }
        for (endpoint, held) in zip(endpoints, heldStarts) {
            logger.info(held == nil ? "sent a standby the whole journal" : "sent a standby the rest of the journal", metadata: [
                "replication.standby": "\(endpoint)", "replication.sequence": "\(sequence)",
                "replication.catchUp": "\(held == nil ? "whole" : "tail")", "journal.bytes": "\(bytes.count - (held?.length ?? 0))",
            ])
        }
    }

    /// Waits until every standby this commit must wait for has acknowledged `sequence`,
    /// sending whole journals meanwhile to those that ask. Returns `false` when the coordinator
    /// is stopping and a standby did not acknowledge in time: the commit's output must then
    /// be withheld (the clients resend to whichever coordinator serves next).
    func waitForAcknowledgements(through sequence: UInt64, catchUp: () throws(JournalError) -> [UInt8]) -> Bool {
        while true {
            // A leader whose lease may have run out releases nothing more.
            if let term, !term.mayServe() { return false }
            serveCatchUps(catchUp)
            condition.lock()
            let now = ContinuousClock.now
            var probed: [Int] = []
            var leaving: [Int] = []
            for index in members.indices where isAwaited(index, for: sequence) {
                guard let since = members[index].owingSince, now - since > timeout else { continue }
                if term != nil {
                    if !members[index].leaving {
                        members[index].leaving = true
                        leaving.append(index)
                    }
                } else if members[index].inSync {
                    fallBehind(index)
                }
                // Overdue: ask where it is, once a timeout, in case what it owes for was lost.
                if members[index].probedAt.map({ now - $0 > timeout }) ?? true {
                    members[index].probedAt = now
                    probed.append(index)
                }
            }
            if !probed.isEmpty {
                let header = ReplicationMessage(.probe, epoch: epoch, stream: stream, sequence: sentSequence).header
                links.execute { [probed] links, _ in links.send(header: header, to: probed) }
            }
            if !leaving.isEmpty {
                condition.unlock()
                recordDeparture(of: leaving)
                continue
            }
            guard members.indices.contains(where: { isAwaited($0, for: sequence) }) else {
                condition.unlock()
                return term?.mayServe() ?? true
            }
            if let shutdownDeadline, now >= shutdownDeadline {
                condition.unlock()
                return false
            }
            // Woken by every acknowledgement; the timeout only paces the lag checks.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
            condition.unlock()
        }
    }

    /// Whether a commit at `sequence` still waits for member `index`. Locked.
    private func isAwaited(_ index: Int, for sequence: UInt64) -> Bool {
        guard members[index].acknowledged < sequence else { return false }
        if term != nil { return members[index].electable }
        return !standbyOptional || members[index].inSync
    }

    // MARK: A group's in-sync set

    /// Records the in-sync set without the members `leaving`, then drops them from it (they
    /// are sent the whole journal to catch up). While it cannot be recorded they stay awaited:
    /// a commit waits for etcd rather than leave an electable standby behind. Journal's
    /// thread, unlocked.
    private func recordDeparture(of leaving: [Int]) {
        let recorded = recordInSyncSet()
        condition.withLock {
            for index in leaving {
                members[index].leaving = false
                guard recorded else { continue }
                members[index].electable = false
                fallBehind(index)
            }
        }
        if !recorded {
            logger.error("cannot record a lagging standby out of the in-sync set (etcd); commits wait for it", metadata: [
                "replication.standbys": "\(leaving.count)",
            ])
            Thread.sleep(forTimeInterval: 0.1)
        }
        condition.broadcast()
    }

    /// Records a standby that caught up into the in-sync set, trying again each second until
    /// it is recorded (it is awaited meanwhile, so nothing waits on this but its election).
    private func recordArrival() {
        guard !recordInSyncSet() else { return }
        logger.warning("cannot record a standby that caught up into the in-sync set (etcd); trying again in 1 s")
        recorder.asyncAfter(deadline: .now() + 1) { [self] in recordArrival() }
    }

    /// Records the standbys that are electable and not leaving, as they are now; `false` when
    /// it could not be. One recording at a time, so the last one written holds the last set.
    @discardableResult
    private func recordInSyncSet() -> Bool {
        guard let term else { return true }
        return recording.withLock {
            let endpoints = condition.withLock { members.filter { $0.electable && !$0.leaving }.map(\.endpoint) }
            return term.recordInSync(endpoints)
        }
    }

    /// Probes, once a timeout, each standby that is out of sync with nothing waiting for it (a
    /// commit that waits probes its own): one that restarted while the leader was idle, or
    /// lost the whole journal on a dropped connection, answers with a request for it.
    /// Called by the coordinator's tick.
    func probeStandbysOutOfSync() {
        let now = ContinuousClock.now
        condition.withLock {
            let probed = members.indices.filter { index in
                let unanswered = members[index].snapshotSequence == nil && members[index].catchUp == .awaitingAnswer
                guard !members[index].inSync, members[index].snapshotSequence != nil || unanswered,
                      members[index].probedAt.map({ now - $0 > timeout }) ?? true else { return false }
                members[index].probedAt = now
                return true
            }
            guard !probed.isEmpty else { return }
            let header = ReplicationMessage(.probe, epoch: epoch, stream: stream, sequence: sentSequence).header
            links.execute { links, _ in links.send(header: header, to: probed) }
        }
    }

    /// Lets waits end after the timeout from now: the coordinator is stopping.
    func beginShutdown() {
        condition.withLock { shutdownDeadline = .now + timeout }
        condition.broadcast()
    }

    /// Closes the links, telling the standbys first that this leader is stepping down (after
    /// everything sent so far, on the same connections): they look for its successor at once.
    func close() {
        let header = condition.withLock { ReplicationMessage(.steppingDown, epoch: epoch, stream: stream, sequence: sentSequence).header }
        links.execute { links, _ in links.sayGoodbye(header: header) }
        links.stop()
    }

    /// Marks a member that owes an acknowledgement for longer than the timeout. Locked.
    private func fallBehind(_ index: Int) {
        let endpoint = members[index].endpoint
        let wasInSync = members[index].inSync
        members[index].inSync = false
        if standbyOptional || term != nil {
            // It is sent the whole journal: what it missed may be more than its queue held.
            members[index].snapshotSequence = nil
            members[index].catchUp = .whole
            members[index].owingSince = nil
        }
        guard wasInSync || term != nil else { return }
        let status = statusLocked
        if term != nil {
            logger.error("""
                standby recorded out of the group's in-sync set: it cannot be elected, and commits no longer wait \
                for it until it catches up
                """, metadata: metadata(endpoint, status, reason: "timeout"))
        } else if standbyOptional {
            logger.error("""
                standby left the in-sync set (--standby-optional): commits no longer wait for it, so what is \
                accepted from now on is on this host alone until it catches up
                """, metadata: metadata(endpoint, status, reason: "timeout"))
        } else {
            logger.error("""
                standby out of sync: new requests are refused (unavailable); accepted requests keep running and \
                their replies wait for it to acknowledge
                """, metadata: metadata(endpoint, status, reason: "timeout"))
        }
        onChange(status)
    }

    private func metadata(_ endpoint: String, _ status: ReplicationStatus, reason: String) -> Logger.Metadata {
        [
            "replication.standby": "\(endpoint)", "replication.inSync": "\(status.inSync)",
            "replication.configured": "\(status.configured)", "replication.reason": "\(reason)",
            "replication.timeout": "\(timeout)",
        ]
    }

    // MARK: The links' thread

    private func received(_ message: ReplicationMessage, from index: Int) {
        let now = ContinuousClock.now
        condition.lock()
        defer { condition.unlock() }
        var member = members[index]
        switch message.kind {
        case .acknowledged:
            guard message.stream == stream else { break }
            if message.sequence > member.acknowledged {
                member.acknowledged = message.sequence
                if let since = member.owingSince { acknowledgementLag = now - since }
                member.owingSince = now
            }
            // Also for a whole journal sent at sequence 0 (before any commit), whose
            // acknowledgement moves nothing: it owes nothing more.
            if member.acknowledged >= sentSequence { member.owingSince = nil }
            if !member.inSync, let snapshot = member.snapshotSequence, member.acknowledged >= snapshot {
                member.inSync = true
                if term != nil, !member.electable {
                    // Awaited from now on, before etcd can name it.
                    member.electable = true
                    recorder.async { [self] in recordArrival() }
                }
                members[index] = member
                let status = statusLocked
                logger.notice("standby in sync", metadata: metadata(member.endpoint, status, reason: "acknowledged"))
                onChange(status)
            }
        case .resync:
            // One whole journal at a time: a second ask while the first is on its way is the
            // standby's retry timer, not a new need.
            if let sentAt = member.snapshotSentAt, let snapshot = member.snapshotSequence, member.acknowledged < snapshot, now - sentAt < timeout {
                break
            }
            let wasInSync = member.inSync
            member.inSync = false
            member.snapshotSequence = nil
            member.catchUp = member.held.map { .after($0) } ?? .whole
            member.held = nil
            member.owingSince = nil
            members[index] = member
            if wasInSync {
                let status = statusLocked
                logger.warning("standby asked for the whole journal (restarted, or missed a commit)", metadata: metadata(member.endpoint, status, reason: "resync"))
                onChange(status)
            }
        case .held:
            member.held = JournalPrefix(decoding: message.payload)
        case .staleEpoch:
            logger.critical("a standby follows a newer epoch than this leader's: this leader may have been deposed", metadata: [
                "replication.standby": "\(member.endpoint)", "replication.epoch": "\(epoch)", "replication.standbyEpoch": "\(message.epoch)",
            ])
        case .snapshot, .append, .probe, .tail, .steppingDown:
            break
        }
        if message.kind != .resync { members[index] = member }
        condition.broadcast()
    }
}
