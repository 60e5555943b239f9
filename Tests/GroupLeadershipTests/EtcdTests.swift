import ActionBusTestSupport
import Foundation
import Testing

/// The tests against a real etcd, each with its own (see ``EtcdServer``), one at a time: the
/// leases' seconds must not be starved by a parallel test on two cores. They skip when etcd is
/// not installed, and fail then when `ACTIONBUS_REQUIRE_ETCD` is set (as `scripts/test.sh` does).
@Suite(.serialized, .timeLimit(.minutes(1)), .enabled(if: EtcdServer.testsEnabled, "needs etcd: apt-get install etcd-server"))
struct EtcdTests {
    /// A fresh etcd for one test.
    static func startEtcd() async throws -> EtcdServer {
        try await EtcdServer.startedForTest()
    }
}
