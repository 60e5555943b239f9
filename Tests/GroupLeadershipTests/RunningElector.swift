import ActionBusTestSupport
import GroupLeadership
import Locking

/// An elector running in a task of its own, and every change it reported with when it arrived.
final class RunningElector: Sendable {
    let elector: LeaderElector
    private let task: Task<Void, Never>
    private let reader: Task<Void, Never>
    private let recorded = Locked<[(at: ContinuousClock.Instant, change: LeaderElector.Change)]>([])

    init(_ elector: LeaderElector) {
        self.elector = elector
        task = Task { await elector.run() }
        let recorded = recorded
        reader = Task {
            for await change in elector.changes {
                let now = ContinuousClock.now
                recorded.withLock { $0.append((now, change)) }
            }
        }
    }

    /// A test that ends early (a failed `#require`) leaves no elector running on.
    deinit {
        task.cancel()
        reader.cancel()
    }

    var changes: [(at: ContinuousClock.Instant, change: LeaderElector.Change)] { recorded.withLock { $0 } }

    /// When it last started leading, and at which epoch.
    var lastLeading: (at: ContinuousClock.Instant, epoch: Int64)? {
        changes.last { if case .leading = $0.change { true } else { false } }.flatMap { entry in
            if case let .leading(epoch) = entry.change { (entry.at, epoch) } else { nil }
        }
    }

    /// The leader it last saw in etcd.
    var seenLeader: LeaderRecord? {
        for entry in changes.reversed() {
            if case let .leaderSeen(view) = entry.change {
                if case let .held(record) = view { return record }
                return nil
            }
        }
        return nil
    }

    /// When it first stopped leading after `instant`, and why.
    func stoppedLeading(after instant: ContinuousClock.Instant) -> (at: ContinuousClock.Instant, reason: LeaderCampaign.FenceReason)? {
        for entry in changes where entry.at >= instant {
            if case let .stoppedLeading(_, reason) = entry.change { return (entry.at, reason) }
        }
        return nil
    }

    /// Cancels it (it stops serving and revokes its lease) and waits until it has finished.
    func stop() async {
        task.cancel()
        await task.value
        await reader.value
    }
}
