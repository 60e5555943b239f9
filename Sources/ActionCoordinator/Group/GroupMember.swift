import Foundation
import GroupLeadership
import Logging
import ServiceLifecycle

/// One member of a coordinator group: a ``Standby`` while another member leads, the group's
/// ``Coordinator`` while it leads, as etcd decides.
///
/// Each term runs the same way: the member keeps a copy of the leader's journal (a standby
/// on its replication endpoint) and campaigns for the group's leader key (only while etcd's
/// in-sync set names it); when it wins, it stops its standby, records itself as the in-sync
/// set, and starts a coordinator on its copy of the journal with the other members as its
/// standbys, at the key's create revision as epoch. When it stops leading (its lease ran out,
/// etcd was unreachable, its journal stalled) its coordinator stops at once (the fence has
/// already closed: nothing decided after the lease may have expired is released) and the
/// member starts over as a standby; the new leader sends it the whole journal, so anything it
/// wrote that no standby acknowledged is dropped.
public final class GroupMember: Service, Sendable {
    public let configuration: GroupConfiguration
    let client: EtcdClient
    /// What the HTTP side reads (``status()``, ``servingCoordinator``), as terms come and go.
    let state: GroupMemberState
    /// Where each member serves clients and workers, in etcd: this one's published, the leader's read.
    private let endpointsRecord: MemberEndpointsRecord
    /// Where this member, while it does not lead, points clients and workers.
    private let leaderEndpoints: LeaderEndpointsLookup
    private let logger: Logger

    /// Checks the configuration; the member talks to etcd only once it runs.
    ///
    /// - Throws: ``GroupConfigurationError`` when the configuration cannot work.
    public init(configuration: GroupConfiguration, logger: Logger = Logger(label: "actionbus.group")) throws {
        try configuration.validate()
        self.configuration = configuration
        client = EtcdClient(endpoints: configuration.etcdEndpoints)
        state = GroupMemberState(group: configuration.group, member: configuration.name)
        endpointsRecord = MemberEndpointsRecord(client: client, group: configuration.group)
        leaderEndpoints = LeaderEndpointsLookup(record: endpointsRecord, member: configuration.name)
        var logger = logger
        logger[metadataKey: "group"] = "\(configuration.group)"
        logger[metadataKey: "member"] = "\(configuration.name)"
        self.logger = logger
    }

    /// Serves term after term until cancelled or a graceful shutdown begins; a leader stops
    /// its coordinator before it gives up its lease, so the next leader takes over at once.
    ///
    /// - Throws: what stopped its standby or coordinator on their own (a journal that cannot
    ///   be written).
    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await self.serveTerm()
            }
        }
    }

    /// How long a member that won may take to start its coordinator (open and read its
    /// journal) before it gives up its lease: well beyond reading a large journal.
    static let coordinatorStartLimit: Duration = .seconds(10)

    private enum Event: Sendable {
        case leadership(LeaderElector.Change)
        case ended(Role, (any Error)?)
    }

    private enum Role: String, Sendable {
        case standby
        case coordinator
    }

    /// One term: a standby until it leads, then the coordinator until it stops leading.
    private func serveTerm() async throws {
        let (events, sink) = AsyncStream<Event>.makeStream()
        let elector = LeaderElector(client: client, configuration: electorConfiguration, logger: logger)
        let electorTask = Task { await elector.run() }
        Task { [state, leaderEndpoints] in
            for await change in elector.changes {
                if case let .leaderSeen(view) = change {
                    state.observed(view)
                    leaderEndpoints.leaderSeen(view)
                }
                sink.yield(.leadership(change))
            }
        }
        Task { await self.publishEndpoints() }
        defer { sink.finish() }
        func endTerm() async {
            electorTask.cancel()
            await electorTask.value
        }

        let standby: Standby
        do {
            standby = try Standby(
                listen: configuration.ownReplicationEndpoint, dataDirectory: configuration.dataDirectory, logger: logger,
                curve: configuration.coordinator.curve, onLeaderSteppingDown: { elector.leaderSteppingDown() }
            )
        } catch {
            await endTerm()
            throw error
        }
        let standbyTask = Self.watch(.standby, sink: sink) { try await standby.run() }
        let redirector = await makeRedirector()
        leaderEndpoints.attach(redirector)
        let epoch: Int64?
        do {
            epoch = try await Self.nextLeadership(events)
        } catch {
            await stopRedirecting(redirector)
            await endTerm()
            throw error
        }
        standbyTask.cancel()
        if case let .failure(error) = await standbyTask.result {
            await stopRedirecting(redirector)
            await endTerm()
            throw error
        }
        guard let epoch else {
            await stopRedirecting(redirector)
            return await endTerm()
        }

        let record = InSyncSetRecord(client: client, group: configuration.group, leader: configuration.name, epoch: epoch)
        let recorded = await record.write(standbys: [])
        // Its endpoints are the coordinator's from here on.
        await stopRedirecting(redirector)
        guard recorded else {
            logger.error("leading, but cannot record the in-sync set in etcd: stepping down", metadata: ["group.epoch": "\(epoch)"])
            return await endTerm()
        }
        state.recorded(inSyncSet: [configuration.name])
        let coordinator: Coordinator
        // Opening the journal on a disk that stopped writing never ends, and the coordinator's
        // own stall watch is not running yet: past the limit, the lease goes.
        let startWatch = Task { [logger] in
            try await Task.sleep(for: Self.coordinatorStartLimit)
            logger.error("the coordinator did not start in time (its journal's disk may have stalled): giving up the lease")
            elector.reportJournalStalled()
        }
        defer { startWatch.cancel() }
        do {
            coordinator = try Coordinator(configuration: coordinatorConfiguration(epoch: epoch, elector: elector, record: record), logger: logger)
        } catch {
            await endTerm()
            throw error
        }
        startWatch.cancel()
        logger.notice("leading the group", metadata: ["group.epoch": "\(epoch)", "endpoint.clients": "\(coordinator.endpoints.clients)"])
        state.startedLeading(epoch: epoch, term: .init(coordinator: coordinator, mayServe: { elector.servingEpoch() == epoch }))
        let coordinatorTask = Self.watch(.coordinator, sink: sink) { try await coordinator.run() }
        var failure: (any Error)?
        for await event in events {
            if case let .leadership(.stoppedLeading(stopped, reason)) = event {
                logger.warning("stopped leading: the coordinator stops and the member rejoins as a standby", metadata: [
                    "group.epoch": "\(stopped)", "group.reason": "\(reason)",
                ])
                break
            }
            if case let .ended(.coordinator, error) = event {
                failure = error
                break
            }
        }
        // Unready at once, before the coordinator has finished stopping.
        state.becameStandby()
        coordinatorTask.cancel()
        if case let .failure(error) = await coordinatorTask.result { failure = failure ?? error }
        // Only now: the next leader may take over once the lease is gone.
        await endTerm()
        if let failure { throw failure }
    }

    /// Stops the term's redirector (its endpoints are the coordinator's next).
    private func stopRedirecting(_ redirector: MemberRedirector?) async {
        leaderEndpoints.attach(nil)
        await redirector?.stop()
    }

    /// Publishes where this member serves clients and workers, for the others to point them to
    /// (and forward Majordomo clients to) while it leads. Without it they are not: said in the log.
    private func publishEndpoints() async {
        let advertised: [(MemberEndpointsRecord.Role, String?, String)] = [
            (.clients, configuration.clientsEndpointToAdvertise, "--clients"),
            (.workers, configuration.workersEndpointToAdvertise, "--workers"),
        ]
        for (role, endpoint, option) in advertised {
            guard let endpoint else {
                logger.warning("""
                    no \(role.rawValue) endpoint to publish (\(option) and --member have wildcard hosts; set --advertise-\(role.rawValue)): \
                    members that do not lead will not point \(role.rawValue) to this one
                    """)
                continue
            }
            if await !endpointsRecord.publish(endpoint, role: role, for: configuration.name) {
                logger.warning("cannot publish this member's endpoint in etcd; trying again next term", metadata: [
                    "endpoint.\(role.rawValue)": "\(endpoint)",
                ])
            }
        }
    }

    /// Answers NOT-LEADER on the member's clients and workers endpoints while it does not lead;
    /// `nil` (said in the log) when they cannot be bound: clients and workers then find the
    /// leader by its silence, as they would without it.
    private func makeRedirector() async -> MemberRedirector? {
        do {
            return try await MemberRedirector(configuration: configuration.coordinator, logger: logger)
        } catch {
            logger.warning("cannot answer NOT-LEADER on this member's endpoints while it does not lead", metadata: [
                "endpoint.clients": "\(configuration.coordinator.clientsEndpoint)",
                "endpoint.workers": "\(configuration.coordinator.workersEndpoint)", "zmq.error": "\(error)",
            ])
            return nil
        }
    }

    /// Waits for this member to lead; `nil` when cancelled. Throws what stopped the standby.
    private static func nextLeadership(_ events: AsyncStream<Event>) async throws -> Int64? {
        for await event in events {
            switch event {
            case let .leadership(.leading(epoch)):
                return epoch
            case let .ended(.standby, error):
                if let error { throw error }
                return nil
            default:
                continue
            }
        }
        return nil
    }

    /// Runs `body` in a task of its own and reports its end as an event.
    private static func watch(
        _ role: Role, sink: AsyncStream<Event>.Continuation, _ body: @escaping @Sendable () async throws -> Void
    ) -> Task<Void, any Error> {
        Task {
            do {
                try await body()
                sink.yield(.ended(role, nil))
            } catch {
                sink.yield(.ended(role, error))
                throw error
            }
        }
    }

    private var electorConfiguration: LeaderElector.Configuration {
        LeaderElector.Configuration(
            group: configuration.group, member: configuration.name,
            campaign: LeaderCampaign.Configuration(leaseTTLSeconds: configuration.leaseTTLSeconds),
            campaignCondition: .inSyncSet(
                group: configuration.group, contains: configuration.name,
                bootstrap: configuration.members.first?.name == configuration.name
            )
        )
    }

    private func coordinatorConfiguration(epoch: Int64, elector: LeaderElector, record: InSyncSetRecord) -> CoordinatorConfiguration {
        var coordinator = configuration.coordinator
        coordinator.dataDirectory = configuration.dataDirectory
        let others = configuration.members.filter { $0.name != configuration.name }
        coordinator.standbys = others.map(\.replicationEndpoint)
        let names = Dictionary(others.map { ($0.replicationEndpoint, $0.name) }, uniquingKeysWith: { first, _ in first })
        let timeout = configuration.coordinator.standbyTimeout
        coordinator.leadership = LeadershipTerm(
            epoch: UInt64(epoch), minimumInSyncStandbys: configuration.minimumInSyncStandbys,
            mayServe: { elector.servingEpoch() == epoch },
            recordInSync: { [state, name = configuration.name] endpoints in
                let standbys = endpoints.compactMap { names[$0] }
                let written = record.writeBlocking(standbys: standbys, timeout: timeout)
                if written { state.recorded(inSyncSet: [name] + standbys) }
                return written
            },
            journalStalled: { stalled in stalled ? elector.reportJournalStalled() : elector.reportJournalProgress() }
        )
        return coordinator
    }
}
