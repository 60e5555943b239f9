import ActionTransport
import Testing
@testable import ZeroMQ

/// Who the coordinator's ZAP handler lets in, socket by socket.
@Suite("CURVE server keys")
struct CurveServerKeysTests {
    @Test func listedKeysGetInAndTheCoordinatorKeyOnTheClientsAndReplicationSockets() throws {
        let coordinator = try CurveKeyPair.generate(), client = try CurveKeyPair.generate(), worker = try CurveKeyPair.generate()
        let keys = CurveServerKeys(keyPair: coordinator, allowedClients: [client.publicKey], allowedWorkers: [worker.publicKey])
        func decision(_ domain: String, _ key: String?, mechanism: String = "CURVE") -> Bool {
            let request = ZAPRequest(domain: domain, address: "127.0.0.1", mechanism: mechanism, curvePublicKey: key)
            if case .allow = keys.decide(request) { return true }
            return false
        }
        #expect(decision(CurveServerKeys.Domain.clients, client.publicKey))
        #expect(decision(CurveServerKeys.Domain.outcomes, client.publicKey))
        #expect(decision(CurveServerKeys.Domain.workers, worker.publicKey))
        #expect(!decision(CurveServerKeys.Domain.workers, client.publicKey))
        #expect(!decision(CurveServerKeys.Domain.clients, nil, mechanism: "NULL"), "plaintext")
        // A group member that does not lead forwards Majordomo clients under the shared key.
        #expect(decision(CurveServerKeys.Domain.clients, coordinator.publicKey))
        #expect(!decision(CurveServerKeys.Domain.workers, coordinator.publicKey))
        #expect(!decision(CurveServerKeys.Domain.outcomes, coordinator.publicKey))
        // A standby's replication endpoint takes the shared key alone.
        #expect(decision(CurveServerKeys.Domain.replication, coordinator.publicKey))
        #expect(!decision(CurveServerKeys.Domain.replication, client.publicKey))
        #expect(!decision(CurveServerKeys.Domain.replication, worker.publicKey))
        #expect(keys.memberKeys.serverPublicKey == coordinator.publicKey && keys.memberKeys.keyPair == coordinator)
    }
}
