import ActionCoordinator
import Foundation
import Testing

/// Configurations a coordinator refuses to start with, rather than run other than asked.
@Suite("Coordinator configuration")
struct CoordinatorConfigurationTests {
    @Test func standbysWithoutAJournalAreRefused() {
        var configuration = CoordinatorConfiguration()
        let name = UUID().uuidString
        configuration.clientsEndpoint = "inproc://\(name)-clients"
        configuration.workersEndpoint = "inproc://\(name)-workers"
        configuration.outcomesEndpoint = "inproc://\(name)-outcomes"
        configuration.dataDirectory = nil
        configuration.standbys = ["tcp://127.0.0.1:1"]
        #expect(throws: (any Error).self) { _ = try Coordinator(configuration: configuration) }
    }
}
