import ActionCoordinator
import Foundation
import Logging

/// The HTTP side of a coordinator group member (`actionbus coordinator --group ... --http`):
/// `/healthz`, `/readyz` (ready only while it leads, so a Service in front of every member
/// routes to the leader alone), `/metrics`, `/api/group`, and while it leads its coordinator's
/// JSON APIs and dashboard, which answer 503 on a standby.
public enum GroupOperations {
    /// How often the dashboard's tail looks for a new term's coordinator.
    static let termPollInterval = Duration.milliseconds(250)

    /// The HTTP server of `member` on `address`. The outcomes are served as `payloadAccess`
    /// allows, by default only on a loopback address.
    public static func server(
        _ member: GroupMember, address: String, metrics: MetricsExport, payloadAccess: PayloadAccess? = nil, logger: Logger
    ) throws -> OperationsServer {
        let tail = OutcomeTail()
        var routes = routes(member, metrics: metrics)
        for (path, handler) in CoordinatorOperations.dashboardRoutes(tail: tail) {
            routes[path] = { query in
                member.servingCoordinator == nil ? notLeading(member.lastKnownStatus) : await handler(query)
            }
        }
        return try OperationsServer(
            address: address, routes: routes, webSockets: ["/api/live": tail],
            payloadPaths: CoordinatorOperations.payloadPaths, payloadAccess: payloadAccess ?? .default(address: address),
            background: [{ await followTerms(of: member, into: tail) }], logger: logger
        )
    }

    /// The routes for `member`, exporting through `metrics`.
    public static func routes(_ member: GroupMember, metrics: MetricsExport) -> [String: OperationsServer.Handler] {
        var routes = CoordinatorOperations.apiRoutes({ member.servingCoordinator }, unavailable: { notLeading(member.lastKnownStatus) })
        routes["/healthz"] = { _ in .text("ok\n") }
        routes["/readyz"] = { _ in
            let serving = await member.servingCoordinator?.isServing() ?? false
            return readiness(member.lastKnownStatus, coordinatorServing: serving)
        }
        routes["/metrics"] = { _ in
            await export(member, to: metrics)
            return .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        routes["/api/group"] = { _ in .json(CoordinatorOperations.json(await member.status())) }
        return routes
    }

    /// What `/readyz` answers: 200 while the member leads and its coordinator serves, else 503;
    /// both say who leads, as JSON.
    static func readiness(_ status: GroupMemberStatus, coordinatorServing: Bool) -> OperationsServer.Reply {
        let reason = status.unreadiness(coordinatorServing: coordinatorServing)
        let answer = Readiness(
            ready: reason == nil, member: status.member, role: status.role, leader: status.leader,
            epoch: status.leaderEpoch, reason: reason
        )
        return .json(CoordinatorOperations.json(answer), status: reason == nil ? 200 : 503)
    }

    /// What `/readyz` says.
    struct Readiness: Codable, Equatable {
        let ready: Bool
        let member: String
        let role: GroupMemberStatus.Role
        let leader: String?
        let epoch: Int64?
        /// Why it is not ready.
        let reason: String?
    }

    /// A coordinator route asked of a member that does not lead.
    static func notLeading(_ status: GroupMemberStatus) -> OperationsServer.Reply {
        .error(503, status.unreadiness(coordinatorServing: false).map { "not the leader: \($0)" } ?? "not the leader")
    }

    /// The member's gauges and counters, and while it leads its coordinator's. A standby keeps
    /// the coordinator series of its last term at their last values: select the leader's with
    /// `actionbus_group_leader == 1`.
    static func export(_ member: GroupMember, to metrics: MetricsExport) async {
        let status = await member.status()
        metrics.gauge("actionbus_group_leader", status.role == .leader ? 1 : 0)
        metrics.gauge("actionbus_group_epoch", Int(status.epoch ?? status.leaderEpoch ?? 0))
        metrics.counter("actionbus_group_terms_led_total", status.termsLed)
        metrics.counter("actionbus_group_leadership_changes_total", status.leadershipChanges)
        if let inSyncSet = status.inSyncSet {
            metrics.gauge("actionbus_group_in_sync_standbys", max(0, inSyncSet.count - 1))
        }
        if let coordinator = member.servingCoordinator {
            await CoordinatorOperations.export(coordinator, to: metrics)
        }
    }

    /// Feeds `tail` from each term's coordinator while the member leads, until cancelled.
    static func followTerms(of member: GroupMember, into tail: OutcomeTail) async {
        while !Task.isCancelled {
            if let coordinator = member.servingCoordinator {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await tail.run(feed: coordinator.outcomeFeed()) }
                    group.addTask {
                        while !Task.isCancelled, member.servingCoordinator === coordinator {
                            try? await Task.sleep(for: termPollInterval)
                        }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
            try? await Task.sleep(for: termPollInterval)
        }
    }
}
